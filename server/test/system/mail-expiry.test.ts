import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OutboxMail } from '../../src/db/schema.js';
import { PATHS, subjects } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import { DATABASES, startTestServer, type TestServer } from '../support/server.js';

/**
 * A queued mail whose link has expired is never sent: the worker marks its row expired instead.
 * The clock is moved as in clock.test.ts: only `Date` is faked (timers stay real), so the server
 * in this process sees the jump; the clock only moves forward and the server is closed before it
 * is restored.
 */
const S = subjects();
const MIN = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(DATABASES)('mail whose link expired while queued, on %s (moved clock)', (db) => {
  let t: TestServer;
  let t0: number;
  const jumpTo = (offsetMs: number) => vi.setSystemTime(t0 + offsetMs);

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    t = await startTestServer({ db });
    await t.initialUser();
  });
  afterAll(async () => {
    await t?.close();
    vi.useRealTimers();
  });

  const rowsTo = (email: string) =>
    withDatabase(t, (d) =>
      d.selectFrom('outbox').selectAll().where('recipient', '=', email).execute(),
    );
  async function waitForRow(
    email: string,
    ok: (row: OutboxMail) => boolean,
    what: string,
  ): Promise<OutboxMail> {
    for (let i = 0; i < 100; i++) {
      const row = (await rowsTo(email)).find(ok);
      if (row) return row;
      await sleep(50);
    }
    throw new Error(`no outbox row to ${email}: ${what}`);
  }

  it('SMTP down, a reset mail queued, its 30 minutes pass, SMTP up: it is never sent and its row is marked expired', async () => {
    const resetUser = await t.verifiedUser();
    const verifyUser = await t.unverifiedUser();
    await t.mail.stop();
    t0 = Date.now();
    expect((await t.post(PATHS.requestReset, { email: resetUser.email })).status).toBe(204);
    expect((await t.post(PATHS.requestVerification, { email: verifyUser.email })).status).toBe(204);
    const queued = await waitForRow(resetUser.email, (r) => r.attempts >= 1, 'a failed attempt');
    expect(queued.kind).toBe('passwordReset');
    expect(queued.text_body).toContain('/reset-password?token=');
    // expires_at is the token's expiry: 30 minutes after the request (to the second).
    const expiresAt = Date.parse(queued.expires_at!.replace(' ', 'T'));
    expect(Math.abs(expiresAt - (t0 + 30 * MIN))).toBeLessThan(5_000);
    expect(queued.expired_at).toBeNull();

    jumpTo(31 * MIN);
    await t.mail.start();
    // The verification mail (its link lives a day) goes out: the worker is running.
    await t.mail.waitForMailTo(verifyUser.email, S.verify, 15_000);
    const expired = await waitForRow(resetUser.email, (r) => r.expired_at !== null, 'expired');
    await t.mail.expectNone(
      (m) => m.to.includes(resetUser.email) && m.subject === S.reset,
      1000,
      'expired reset mail',
    );
    expect(expired).toMatchObject({
      kind: 'passwordReset',
      subject: S.reset,
      text_body: '',
      html_body: '',
    });
    expect(expired.attempts).toBeGreaterThanOrEqual(1);
    expect(expired.last_error).not.toBeNull();
    // Later passes leave it alone: it is kept, unsent, for the operator.
    await sleep(300);
    expect(await rowsTo(resetUser.email)).toHaveLength(1);
    expect(t.mail.countTo(resetUser.email, S.reset)).toBe(0);
  });

  it('an expired row is deleted once kept for 7 days', async () => {
    const u = await t.verifiedUser();
    await t.mail.stop();
    t0 = Date.now();
    expect((await t.post(PATHS.requestReset, { email: u.email })).status).toBe(204);
    await waitForRow(u.email, (r) => r.attempts >= 1, 'a failed attempt');
    jumpTo(31 * MIN);
    await waitForRow(u.email, (r) => r.expired_at !== null, 'expired');
    await t.mail.start();
    jumpTo(31 * MIN + 7 * 24 * 60 * MIN + MIN);
    for (let i = 0; i < 100 && (await rowsTo(u.email)).length > 0; i++) await sleep(50);
    expect(await rowsTo(u.email)).toEqual([]);
    expect(t.mail.countTo(u.email, S.reset)).toBe(0);
  });
});
