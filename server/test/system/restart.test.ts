import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS, subjects } from '../support/contract.js';
import { DATABASES, startTestServer, type TestServer } from '../support/server.js';

const S = subjects();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(DATABASES)('restart on the same storage (%s)', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
  });
  afterAll(() => t?.close());

  it('users, tokens, secrets, unused codes and the resend throttle survive a restart', async () => {
    expect(t.bootstrapLink).not.toBeNull();
    const initial = await t.initialUser();
    const pending = await t.unverifiedUser();
    const verificationToken = await t.verificationToken(pending.email);
    const resetUser = await t.verifiedUser();
    const resetToken = await t.resetToken(resetUser.email);
    const code = await t.newCode();

    await t.restart();
    expect(t.bootstrapLink, 'no new bootstrap link once a user exists').toBeNull();

    // The signing secret (DATA_DIR/secret.key, or TOKEN_SECRET on PostgreSQL) is kept: the old
    // auth token still works.
    const refresh = await t.post(PATHS.refresh, {}, initial.token);
    expect(refresh.status, refresh.text).toBe(200);
    expect((await t.get(PATHS.codes, initial.token)).status).toBe(200);
    expect((await t.login(initial.email, initial.password)).status).toBe(200);

    // The throttle holds: a second verification request within 2 minutes sends nothing.
    expect((await t.post(PATHS.requestVerification, { email: pending.email })).status).toBe(204);
    expect((await t.post(PATHS.requestReset, { email: resetUser.email })).status).toBe(204);
    await sleep(700);
    expect(t.mail.countTo(pending.email, S.verify)).toBe(1);
    expect(t.mail.countTo(resetUser.email, S.reset)).toBe(1);

    // Tokens mailed before the restart still work.
    expect((await t.post(PATHS.confirmVerification, { token: verificationToken })).status).toBe(
      204,
    );
    const np = 'Steady-Compass-3141';
    const reset = await t.post(PATHS.confirmReset, {
      token: resetToken,
      password: np,
      passwordConfirm: np,
    });
    expect(reset.status, reset.text).toBe(204);
    expect((await t.login(resetUser.email, np)).status).toBe(200);

    // Unused codes survive.
    expect((await t.signUp(code, 'after-restart@example.com', 'Steady-Compass-2718')).status).toBe(
      200,
    );
  });

  it('TOKEN_SECRET overrides the stored secrets: tokens follow whichever secret signed them', async () => {
    const u = await t.verifiedUser();
    // SQLite: the secret file; PostgreSQL: the TOKEN_SECRET every test instance there has.
    const stored = t.env.TOKEN_SECRET;
    const secret = 'x'.repeat(16) + 'override-secret-for-tests';
    await t.restart({ TOKEN_SECRET: secret });
    expect((await t.post(PATHS.refresh, {}, u.token)).status, 'signed with the stored secret').toBe(
      401,
    );
    const withOverride = await t.tokenFor(u);
    await t.restart();
    expect((await t.post(PATHS.refresh, {}, withOverride)).status).toBe(200);
    if (stored) t.env.TOKEN_SECRET = stored;
    else delete t.env.TOKEN_SECRET;
    await t.restart();
    expect((await t.post(PATHS.refresh, {}, withOverride)).status).toBe(401);
    expect((await t.post(PATHS.refresh, {}, u.token)).status, 'the stored secret is back').toBe(
      200,
    );
  });
});
