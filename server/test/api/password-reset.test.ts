import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectToken } from '../support/checks.js';
import { MSG, PATHS, subjects } from '../support/contract.js';
import { unsigned } from '../support/http.js';
import { withDatabase } from '../support/db.js';
import { linksIn } from '../support/mail.js';
import {
  APP_URL,
  DATABASES,
  startTestServer,
  strongPassword,
  type TestServer,
  type User,
} from '../support/server.js';
import { SoftAuthenticator } from '../support/webauthn.js';
import { scenarios, type Scenario, type Vars } from '../support/table.js';

const S = subjects();
const NEW_PASSWORD = 'Fresh-Orchard-2046';

/** A verified, signed-in user with a reset token. */
async function userWithResetToken(s: TestServer): Promise<Vars> {
  const u = await s.verifiedUser();
  return {
    email: u.email,
    password: u.password,
    auth: u.token,
    id: u.id,
    token: await s.resetToken(u.email),
  };
}

const reset = (v: Vars, password = NEW_PASSWORD) => ({
  token: v.token,
  password,
  passwordConfirm: password,
});

describe.each(DATABASES)('request and confirm password reset on %s', (db) => {
  let t: TestServer;
  let alice: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    alice = await t.verifiedUser();
  });
  afterAll(() => t?.close());

  const rows: Scenario[] = [
    {
      name: 'request: missing email → validation_required',
      method: 'POST',
      path: PATHS.requestReset,
      body: {},
      status: 400,
      error: { message: MSG.validate, fields: { email: 'validation_required' } },
    },
    {
      name: 'request: malformed email → validation_is_email',
      method: 'POST',
      path: PATHS.requestReset,
      body: { email: 'nope@' },
      status: 400,
      error: { message: MSG.validate, fields: { email: 'validation_is_email' } },
    },
    {
      name: 'request: unknown account → 204, no mail',
      method: 'POST',
      path: PATHS.requestReset,
      body: { email: 'ghost-reset@example.com' },
      status: 204,
      empty: true,
      after: (s) => s.mail.expectNoMailTo('ghost-reset@example.com'),
    },
    {
      name: 'request: existing account → 204 and a reset mail with the link',
      before: async (s) => {
        const u = await s.verifiedUser();
        return { email: u.email, id: u.id, collectionId: u.record.collectionId };
      },
      method: 'POST',
      path: PATHS.requestReset,
      body: (v) => ({ email: v.email!.toUpperCase() }),
      status: 204,
      empty: true,
      after: async (s, v) => {
        const mail = await s.mail.waitForMailTo(v.email!, S.reset);
        expect(mail.html).not.toBe('');
        const link = linksIn(mail.text).find((l) =>
          l.startsWith(`${APP_URL}/reset-password?token=`),
        );
        expect(link, mail.text).toBeDefined();
        const token = new URL(link!).searchParams.get('token')!;
        expectToken(token, 'passwordReset', {
          id: v.id!,
          collectionId: v.collectionId!,
          email: v.email!,
        });
      },
    },
    {
      name: 'request: second request within 2 minutes → 204, no second mail',
      before: async (s) => {
        const u = await s.verifiedUser();
        await s.resetToken(u.email);
        return { email: u.email };
      },
      method: 'POST',
      path: PATHS.requestReset,
      body: (v) => ({ email: v.email }),
      status: 204,
      after: async (s, v) => {
        await new Promise((r) => setTimeout(r, 500));
        expect(s.mail.countTo(v.email!, S.reset)).toBe(1);
      },
    },
    {
      name: 'request: an unverified account gets a reset mail too',
      before: async (s) => ({ email: (await s.unverifiedUser()).email }),
      method: 'POST',
      path: PATHS.requestReset,
      body: (v) => ({ email: v.email }),
      status: 204,
      after: async (s, v) => {
        await s.mail.waitForMailTo(v.email!, S.reset);
      },
    },
    // ---- confirm
    {
      name: 'confirm: empty body → all three fields required together',
      method: 'POST',
      path: PATHS.confirmReset,
      body: {},
      status: 400,
      error: {
        message: MSG.validate,
        fields: {
          token: 'validation_required',
          password: 'validation_required',
          passwordConfirm: 'validation_required',
        },
      },
    },
    {
      name: 'confirm: bad token, short password, mismatch → all reported together',
      method: 'POST',
      path: PATHS.confirmReset,
      body: { token: 'garbage', password: 'short', passwordConfirm: 'other' },
      status: 400,
      error: {
        message: MSG.validate,
        fields: {
          token: 'validation_invalid_token',
          password: 'validation_length_out_of_range',
          passwordConfirm: 'validation_values_mismatch',
        },
      },
    },
    {
      name: 'confirm: 257-character password → validation_length_out_of_range',
      before: userWithResetToken,
      method: 'POST',
      path: PATHS.confirmReset,
      body: (v) => reset(v, 'b'.repeat(257)),
      status: 400,
      error: { message: MSG.validate, fields: { password: 'validation_length_out_of_range' } },
      after: async (s, v) => {
        // The refused attempt did not use up the token.
        const ok = await s.post(PATHS.confirmReset, reset(v));
        expect(ok.status, ok.text).toBe(204);
      },
    },
    {
      name: 'confirm: a common password → validation_password_too_common; old password still works',
      before: userWithResetToken,
      method: 'POST',
      path: PATHS.confirmReset,
      body: (v) => reset(v, 'password'),
      status: 400,
      error: { message: MSG.validate, fields: { password: 'validation_password_too_common' } },
      after: async (s, v) => {
        expect((await s.login(v.email!, v.password!)).status).toBe(200);
      },
    },
    {
      name: 'confirm: an auth token as the reset token → validation_invalid_token',
      method: 'POST',
      path: PATHS.confirmReset,
      body: () => ({ token: alice.token, password: NEW_PASSWORD, passwordConfirm: NEW_PASSWORD }),
      status: 400,
      error: { message: MSG.validate, fields: { token: 'validation_invalid_token' } },
      after: async (s) => {
        expect((await s.login(alice.email, alice.password)).status).toBe(200);
      },
    },
    {
      name: 'confirm: a verification token as the reset token → validation_invalid_token',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { token: await s.verificationToken(u.email) };
      },
      method: 'POST',
      path: PATHS.confirmReset,
      body: (v) => reset(v),
      status: 400,
      error: { message: MSG.validate, fields: { token: 'validation_invalid_token' } },
    },
    {
      name: 'confirm: the reset token unsigned (alg none, empty signature) → validation_invalid_token; the old password still works',
      before: userWithResetToken,
      method: 'POST',
      path: PATHS.confirmReset,
      body: (v) => reset({ ...v, token: unsigned(v.token!) }),
      status: 400,
      error: { message: MSG.validate, fields: { token: 'validation_invalid_token' } },
      after: async (s, v) => {
        expect((await s.login(v.email!, v.password!)).status).toBe(200);
      },
    },
    {
      name: 'confirm: valid → 204; old sessions and the old password die, the new one works',
      before: userWithResetToken,
      method: 'POST',
      path: PATHS.confirmReset,
      body: (v) => reset(v),
      status: 204,
      empty: true,
      after: async (s, v) => {
        const refresh = await s.post(PATHS.refresh, {}, v.auth);
        expect(refresh.status, 'old auth token must be rejected').toBe(401);
        expect((await s.get(PATHS.codes, v.auth)).status).toBe(401);
        expect((await s.get(PATHS.record(v.id!), v.auth)).status).toBe(404);
        const old = await s.login(v.email!, v.password!);
        expect(old.body).toEqual({ data: {}, message: MSG.auth, status: 400 });
        const fresh = await s.login(v.email!, NEW_PASSWORD);
        expect(fresh.status).toBe(200);
        expect((await s.post(PATHS.refresh, {}, fresh.body.token)).status).toBe(200);
      },
    },
    {
      name: 'confirm: the same reset token twice → second is validation_invalid_token',
      before: async (s) => {
        const v = await userWithResetToken(s);
        const first = await s.post(PATHS.confirmReset, reset(v));
        expect(first.status, first.text).toBe(204);
        return v;
      },
      method: 'POST',
      path: PATHS.confirmReset,
      body: (v) => reset(v, 'Another-Orchard-2047'),
      status: 400,
      error: { message: MSG.validate, fields: { token: 'validation_invalid_token' } },
      after: async (s, v) => {
        expect((await s.login(v.email!, NEW_PASSWORD)).status).toBe(200);
        expect((await s.login(v.email!, 'Another-Orchard-2047')).status).toBe(400);
      },
    },
    {
      name: 'confirm: a reset of an unverified user verifies them',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { email: u.email, token: await s.resetToken(u.email) };
      },
      method: 'POST',
      path: PATHS.confirmReset,
      body: (v) => reset(v),
      status: 204,
      after: async (s, v) => {
        const login = await s.login(v.email!, NEW_PASSWORD);
        expect(login.status).toBe(200);
        expect(login.body.record.verified).toBe(true);
      },
    },
    {
      name: 'confirm: a reset token of a deleted user → validation_invalid_token',
      before: async (s) => {
        const v = await userWithResetToken(s);
        expect((await s.del(PATHS.record(v.id!), v.auth)).status).toBe(204);
        return v;
      },
      method: 'POST',
      path: PATHS.confirmReset,
      body: (v) => reset(v),
      status: 400,
      error: { message: MSG.validate, fields: { token: 'validation_invalid_token' } },
    },
    {
      name: 'a reset token as Authorization is a guest → 401 on auth-refresh',
      before: userWithResetToken,
      method: 'POST',
      path: PATHS.refresh,
      headers: (v) => ({ Authorization: v.token! }),
      status: 401,
      error: { message: MSG.needsAuth },
    },
  ];
  scenarios(() => t, rows);

  it('the reset mail has the configured subject, the full link in text and an HTML part', async () => {
    const u = await t.verifiedUser();
    await t.post(PATHS.requestReset, { email: u.email });
    const mail = await t.mail.waitForMailTo(u.email, S.reset);
    expect(mail.subject).toBe('Reset your Gatehouse password');
    expect(mail.text).toMatch(/http:\/\/app\.test\/reset-password\?token=[\w-]+\.[\w-]+\.[\w-]+/);
    expect(mail.html).toMatch(/<[a-z]/i);
  });

  it('a reset that verifies an account removes the ways in added while it was unverified, and says so', async () => {
    // Someone with a spare code signed up with an address that is not theirs and added ways in
    // (before they needed a verified address: put in the database as such an account has them).
    const squatter = await t.unverifiedUser();
    const squatterToken = (await t.login(squatter.email, squatter.password)).body.token as string;
    const now = new Date().toISOString().replace('T', ' ');
    await withDatabase(t, async (d) => {
      await d
        .insertInto('passkeys')
        .values({
          id: `pk${Date.now()}`.slice(0, 15),
          user_id: squatter.id,
          credential_id: `cred-${squatter.id}`,
          public_key: 'AAAA',
          counter: 0,
          transports: '[]',
          name: 'Not yours',
          created: now,
          last_used: null,
        })
        .execute();
      await d
        .insertInto('external_auths')
        .values({
          id: `ea${Date.now()}`.slice(0, 15),
          user_id: squatter.id,
          provider: 'oidc',
          provider_id: `squatter-${squatter.id}`,
          created: now,
        })
        .execute();
    });

    // The address's real owner resets the password from the mail.
    const token = await t.resetToken(squatter.email);
    const password = strongPassword();
    const res = await t.post(PATHS.confirmReset, { token, password, passwordConfirm: password });
    expect(res.status, res.text).toBe(204);

    const left = await withDatabase(t, async (d) => ({
      passkeys: await d
        .selectFrom('passkeys')
        .select('id')
        .where('user_id', '=', squatter.id)
        .execute(),
      providers: await d
        .selectFrom('external_auths')
        .select('id')
        .where('user_id', '=', squatter.id)
        .execute(),
      sessions: await d
        .selectFrom('sessions')
        .select('id')
        .where('user_id', '=', squatter.id)
        .execute(),
    }));
    expect(left).toEqual({ passkeys: [], providers: [], sessions: [] });
    expect((await t.post(PATHS.refresh, {}, squatterToken)).status).toBe(401);
    const notice = await t.mail.waitForMailTo(squatter.email, S.passwordChanged);
    expect(notice.text).toContain('were removed');
    const login = await t.login(squatter.email, password);
    expect(login.status).toBe(200);
    expect(login.body.record.verified).toBe(true);
  });

  it('a reset of a verified account keeps its passkeys', async () => {
    const u = await t.verifiedUser();
    const key = new SoftAuthenticator(APP_URL);
    const options = await t.post(PATHS.passkeyOptions, {}, u.token);
    const added = await t.post(
      PATHS.passkeys,
      { name: 'Mine', response: key.register(options.body) },
      u.token,
    );
    expect(added.status, added.text).toBe(200);
    const token = await t.resetToken(u.email);
    const password = strongPassword();
    expect(
      (await t.post(PATHS.confirmReset, { token, password, passwordConfirm: password })).status,
    ).toBe(204);
    const login = await t.post(PATHS.passkeyLoginOptions, {});
    const signIn = await t.post(PATHS.authWithPasskey, { response: key.authenticate(login.body) });
    expect(signIn.status, signIn.text).toBe(200);
  });
});
