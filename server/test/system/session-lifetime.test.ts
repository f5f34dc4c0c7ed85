import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PATHS } from '../support/contract.js';
import { jwtPayload } from '../support/http.js';
import { DATABASES, startTestServer, type TestServer } from '../support/server.js';

/**
 * A session's two limits, checked by moving the clock (only Date is faked, so the in-process
 * server's clock moves too): 5 days without use (the auth token's lifetime) and SESSION_MAX_DAYS
 * from sign-in however active the member is.
 */
const DAY = 24 * 60 * 60_000;

describe.each(DATABASES)('session lifetime on %s (moved clock)', (db) => {
  let t: TestServer;
  let t0: number;
  const jumpTo = (offsetMs: number) => vi.setSystemTime(t0 + offsetMs);

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    t = await startTestServer({ db, env: { SESSION_MAX_DAYS: '7' } });
    await t.initialUser();
  });
  afterAll(async () => {
    await t?.close();
    vi.useRealTimers();
  });

  it('kept in use, a session still ends SESSION_MAX_DAYS after sign-in', async () => {
    const u = await t.verifiedUser();
    t0 = Date.now();
    let token = u.token;
    for (const day of [3, 6]) {
      jumpTo(day * DAY);
      const res = await t.post(PATHS.refresh, {}, token);
      expect(res.status, `refresh on day ${day}`).toBe(200);
      token = res.body.token;
    }
    // The token refreshed on day 6 would live 5 days, but never past the session's 7 days.
    expect(jwtPayload(token).exp).toBeLessThanOrEqual(Math.floor((t0 + 7 * DAY) / 1000) + 60);
    jumpTo(7 * DAY + 120_000);
    expect((await t.post(PATHS.refresh, {}, token)).status).toBe(401);
    expect((await t.get(PATHS.codes, token)).status).toBe(401);
    // Signing in again starts a new session.
    expect((await t.login(u.email, u.password)).status).toBe(200);
  });

  it('left unused for 5 days, a session ends', async () => {
    const u = await t.verifiedUser();
    t0 = Date.now();
    jumpTo(5 * DAY - 60_000);
    expect((await t.get(PATHS.codes, u.token)).status).toBe(200);
    jumpTo(5 * DAY + 60_000);
    expect((await t.post(PATHS.refresh, {}, u.token)).status).toBe(401);
  });
});
