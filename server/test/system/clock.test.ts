import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MSG, PATHS, subjects } from '../support/contract.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';
import { mfaIdFor, totpCode, twoStepMember } from '../support/totp.js';

/**
 * Lifetimes and the resend throttle, checked by moving the clock. The server runs in this process,
 * so faking `Date` (only Date: timers stay real) moves the server's clock too. The clock only ever
 * moves forward here, and the server is closed before it is restored.
 */
const S = subjects();
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const invalidMfa = {
  data: {
    mfaId: {
      code: 'validation_invalid_mfa_id',
      message: 'Invalid or expired second-step session.',
    },
  },
  message: MSG.validate,
  status: 400,
};
const invalidToken = {
  data: { token: { code: 'validation_invalid_token', message: 'Invalid or expired token.' } },
  message: MSG.validate,
  status: 400,
};

describe.each(DATABASES)('token lifetimes and the resend throttle on %s (moved clock)', (db) => {
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

  it('the 2-minute throttle ends after 2 minutes; each kind of mail has its own', async () => {
    const u = await t.unverifiedUser();
    t0 = Date.now();
    await t.verificationToken(u.email);
    jumpTo(MIN);
    expect((await t.post(PATHS.requestVerification, { email: u.email })).status).toBe(204);
    // A reset mail is a different kind: not throttled by the verification mail.
    expect((await t.post(PATHS.requestReset, { email: u.email })).status).toBe(204);
    await t.mail.waitForMailTo(u.email, S.reset);
    await sleep(400);
    expect(t.mail.countTo(u.email, S.verify)).toBe(1);
    jumpTo(2 * MIN + 5_000);
    expect((await t.post(PATHS.requestVerification, { email: u.email })).status).toBe(204);
    await t.mail.waitFor(
      () => t.mail.countTo(u.email, S.verify) === 2,
      5000,
      'a second verification mail after 2 minutes',
    );
  });

  it('reset 30 min, verification 1 day, auth 5 days: valid just before, dead just after', async () => {
    const [a, b, c, d, e] = [
      await t.unverifiedUser(),
      await t.unverifiedUser(),
      await t.verifiedUser(),
      await t.verifiedUser(),
      await t.verifiedUser(),
    ] as User[];
    t0 = Date.now();
    const verifyA = await t.verificationToken(a!.email);
    const verifyB = await t.verificationToken(b!.email);
    const resetC = await t.resetToken(c!.email);
    const resetD = await t.resetToken(d!.email);
    const authE = e!.token;
    const pw = 'Lunar-Meadow-8080';
    const reset = (token: string) =>
      t.post(PATHS.confirmReset, { token, password: pw, passwordConfirm: pw });

    jumpTo(28 * MIN);
    expect((await reset(resetC)).status).toBe(204);
    jumpTo(32 * MIN);
    expect((await reset(resetD)).body).toEqual(invalidToken);

    jumpTo(DAY - 3 * MIN);
    expect((await t.post(PATHS.confirmVerification, { token: verifyA })).status).toBe(204);
    jumpTo(DAY + 3 * MIN);
    expect((await t.post(PATHS.confirmVerification, { token: verifyB })).body).toEqual(
      invalidToken,
    );

    jumpTo(5 * DAY - 10 * MIN);
    const refreshed = await t.post(PATHS.refresh, {}, authE);
    expect(refreshed.status).toBe(200);
    jumpTo(5 * DAY + 10 * MIN);
    expect((await t.post(PATHS.refresh, {}, authE)).status).toBe(401);
    expect((await t.get(PATHS.codes, authE)).status).toBe(401);
    // The refreshed token lives 5 days from its own issue.
    expect((await t.post(PATHS.refresh, {}, refreshed.body.token)).status).toBe(200);
  });

  it('an mfaId lives 10 minutes; 5 wrong codes lock the second step for 15 minutes', async () => {
    const m = await twoStepMember(t);
    t0 = Date.now();
    const early = await mfaIdFor(t, m);
    const late = await mfaIdFor(t, m);
    const second = (mfaId: string, code: string) => t.post(PATHS.authWithTotp, { mfaId, code });

    jumpTo(9 * MIN);
    expect((await second(early, totpCode(m.secret))).status).toBe(200);
    jumpTo(10 * MIN + 5_000);
    expect((await second(late, totpCode(m.secret))).body).toEqual(invalidMfa);

    const mfaId = await mfaIdFor(t, m);
    for (let i = 0; i < 5; i++) expect((await second(mfaId, `99999${i}`)).status).toBe(400);
    expect((await second(mfaId, totpCode(m.secret))).status).toBe(429);
    jumpTo(24 * MIN);
    expect((await second(await mfaIdFor(t, m), totpCode(m.secret))).status).toBe(429);
    jumpTo(25 * MIN + 10_000);
    expect((await second(await mfaIdFor(t, m), totpCode(m.secret))).status).toBe(200);
  });
});
