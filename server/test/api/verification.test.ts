import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectToken } from '../support/checks.js';
import { MSG, PATHS, subjects } from '../support/contract.js';
import { tamperSignature, unsigned, withPayload } from '../support/http.js';
import { linksIn } from '../support/mail.js';
import {
  APP_URL,
  DATABASES,
  startTestServer,
  type TestServer,
  type User,
} from '../support/server.js';
import { scenarios, type Scenario } from '../support/table.js';

const S = subjects();
const invalidToken = { message: MSG.validate, fields: { token: 'validation_invalid_token' } };

describe.each(DATABASES)('request and confirm verification on %s', (db) => {
  let t: TestServer;
  let alice: User; // verified, signed in
  beforeAll(async () => {
    t = await startTestServer({ db });
    alice = await t.verifiedUser();
  });
  afterAll(() => t?.close());

  const rows: Scenario[] = [
    {
      name: 'request: missing email → validation_required',
      method: 'POST',
      path: PATHS.requestVerification,
      body: {},
      status: 400,
      error: { message: MSG.validate, fields: { email: 'validation_required' } },
    },
    {
      name: 'request: malformed email → validation_is_email',
      method: 'POST',
      path: PATHS.requestVerification,
      body: { email: 'not-an-email' },
      status: 400,
      error: { message: MSG.validate, fields: { email: 'validation_is_email' } },
    },
    {
      name: 'request: unknown account → 204 and no mail',
      method: 'POST',
      path: PATHS.requestVerification,
      body: { email: 'ghost-verify@example.com' },
      status: 204,
      empty: true,
      after: (s) => s.mail.expectNoMailTo('ghost-verify@example.com'),
    },
    {
      name: 'request: unverified account → 204 and one verification mail with the link',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { email: u.email, id: u.id, collectionId: u.record.collectionId };
      },
      method: 'POST',
      path: PATHS.requestVerification,
      body: (v) => ({ email: v.email }),
      status: 204,
      empty: true,
      after: async (s, v) => {
        const mail = await s.mail.waitForMailTo(v.email!, S.verify);
        expect(mail.html).not.toBe('');
        const link = linksIn(mail.text).find((l) => l.startsWith(`${APP_URL}/verify-email?token=`));
        expect(link, mail.text).toBeDefined();
        const token = new URL(link!).searchParams.get('token')!;
        expectToken(token, 'verification', {
          id: v.id!,
          collectionId: v.collectionId!,
          email: v.email!,
        });
        expect(mail.html).toContain(token);
      },
    },
    {
      name: 'request: a second request within 2 minutes → 204 but no second mail',
      before: async (s) => {
        const u = await s.unverifiedUser();
        await s.verificationToken(u.email);
        return { email: u.email };
      },
      method: 'POST',
      path: PATHS.requestVerification,
      body: (v) => ({ email: v.email }),
      status: 204,
      after: async (s, v) => {
        await new Promise((r) => setTimeout(r, 500));
        expect(s.mail.countTo(v.email!, S.verify)).toBe(1);
      },
    },
    {
      name: 'request: email in another case with spaces → 204, the mail goes to the account',
      before: async (s) => ({ email: (await s.unverifiedUser()).email }),
      method: 'POST',
      path: PATHS.requestVerification,
      body: (v) => ({ email: ` ${v.email!.toUpperCase()} ` }),
      status: 204,
      after: async (s, v) => {
        await s.mail.waitForMailTo(v.email!, S.verify);
      },
    },
    {
      name: 'request: already verified account → 204 and no mail',
      before: async (s) => {
        const u = await s.verifiedUser();
        const before = s.mail.countTo(u.email);
        return { email: u.email, before: String(before) };
      },
      method: 'POST',
      path: PATHS.requestVerification,
      body: (v) => ({ email: v.email }),
      status: 204,
      after: async (s, v) => {
        await new Promise((r) => setTimeout(r, 500));
        expect(s.mail.countTo(v.email!)).toBe(Number(v.before));
      },
    },
    // ---- confirm
    {
      name: 'confirm: missing token → validation_required',
      method: 'POST',
      path: PATHS.confirmVerification,
      body: {},
      status: 400,
      error: { message: MSG.validate, fields: { token: 'validation_required' } },
    },
    {
      name: 'confirm: not a JWT → validation_invalid_token_claims',
      method: 'POST',
      path: PATHS.confirmVerification,
      body: { token: 'definitely-not-a-jwt' },
      status: 400,
      error: { message: MSG.validate, fields: { token: 'validation_invalid_token_claims' } },
    },
    {
      name: 'confirm: a valid token → 204, the user is verified; repeating it is a 204 no-op',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { email: u.email, password: u.password, token: await s.verificationToken(u.email) };
      },
      method: 'POST',
      path: PATHS.confirmVerification,
      body: (v) => ({ token: v.token }),
      status: 204,
      empty: true,
      after: async (s, v) => {
        const login = await s.login(v.email!, v.password!);
        expect(login.body.record.verified).toBe(true);
        const again = await s.post(PATHS.confirmVerification, { token: v.token });
        expect(again.status, again.text).toBe(204);
        // Verified users can use the invite endpoints.
        expect((await s.get(PATHS.codes, login.body.token)).status).toBe(200);
      },
    },
    {
      name: 'confirm: an auth token is not a verification token → validation_invalid_token',
      method: 'POST',
      path: PATHS.confirmVerification,
      body: () => ({ token: alice.token }),
      status: 400,
      error: invalidToken,
    },
    {
      name: 'confirm: a password-reset token is not a verification token → validation_invalid_token',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { email: u.email, password: u.password, token: await s.resetToken(u.email) };
      },
      method: 'POST',
      path: PATHS.confirmVerification,
      body: (v) => ({ token: v.token }),
      status: 400,
      error: invalidToken,
      after: async (s, v) => {
        expect((await s.login(v.email!, v.password!)).body.record.verified).toBe(false);
      },
    },
    {
      name: 'confirm: the token unsigned (alg none, empty signature) → validation_invalid_token, still unverified',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { email: u.email, password: u.password, token: await s.verificationToken(u.email) };
      },
      method: 'POST',
      path: PATHS.confirmVerification,
      body: (v) => ({ token: unsigned(v.token!) }),
      status: 400,
      error: invalidToken,
      after: async (s, v) => {
        expect((await s.login(v.email!, v.password!)).body.record.verified).toBe(false);
      },
    },
    {
      name: 'confirm: a tampered signature → validation_invalid_token, the user stays unverified',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { email: u.email, password: u.password, token: await s.verificationToken(u.email) };
      },
      method: 'POST',
      path: PATHS.confirmVerification,
      body: (v) => ({ token: tamperSignature(v.token!) }),
      status: 400,
      error: invalidToken,
      after: async (s, v) => {
        expect((await s.login(v.email!, v.password!)).body.record.verified).toBe(false);
      },
    },
    {
      name: 'confirm: a token whose exp was pushed back (signature broken) → validation_invalid_token',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { token: await s.verificationToken(u.email) };
      },
      method: 'POST',
      path: PATHS.confirmVerification,
      body: (v) => ({ token: withPayload(v.token!, (p) => ({ ...p, exp: p.exp + 86_400 * 365 })) }),
      status: 400,
      error: invalidToken,
    },
    {
      name: 'confirm: a parseable JWT with another algorithm in its header (bad signature) → validation_invalid_token',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { token: await s.verificationToken(u.email) };
      },
      method: 'POST',
      path: PATHS.confirmVerification,
      body: (v) => {
        const [, p, sig] = v.token!.split('.');
        const h = Buffer.from('{"alg":"HS512","typ":"JWT"}').toString('base64url');
        return { token: `${h}.${p}.${sig}` };
      },
      status: 400,
      error: invalidToken,
    },
    {
      name: 'confirm: a parseable JWT of an unknown type (wrong type) → validation_invalid_token',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { token: await s.verificationToken(u.email) };
      },
      method: 'POST',
      path: PATHS.confirmVerification,
      body: (v) => ({ token: withPayload(v.token!, (p) => ({ ...p, type: 'emailChange' })) }),
      status: 400,
      error: invalidToken,
    },
    {
      name: 'confirm: the token of a deleted user → validation_invalid_token',
      before: async (s) => {
        const u = await s.unverifiedUser();
        const token = await s.verificationToken(u.email);
        const auth = await s.tokenFor(u);
        expect((await s.del(PATHS.record(u.id), auth)).status).toBe(204);
        return { token };
      },
      method: 'POST',
      path: PATHS.confirmVerification,
      body: (v) => ({ token: v.token }),
      status: 400,
      error: invalidToken,
    },
    {
      name: 'confirm: a token issued before a password reset → validation_invalid_token',
      before: async (s) => {
        const u = await s.unverifiedUser();
        const token = await s.verificationToken(u.email);
        const reset = await s.resetToken(u.email);
        const res = await s.post(PATHS.confirmReset, {
          token: reset,
          password: 'Brand-new-pass-77',
          passwordConfirm: 'Brand-new-pass-77',
        });
        expect(res.status, res.text).toBe(204);
        return { token };
      },
      method: 'POST',
      path: PATHS.confirmVerification,
      body: (v) => ({ token: v.token }),
      status: 400,
      error: invalidToken,
    },
    {
      name: 'a verification token as Authorization is a guest → 401 on invite codes',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { token: await s.verificationToken(u.email) };
      },
      method: 'GET',
      path: PATHS.codes,
      headers: (v) => ({ Authorization: v.token! }),
      status: 401,
      error: { message: MSG.needsAuth },
    },
  ];
  scenarios(() => t, rows);

  it('the verification mail has the configured subject, a text part with the full link and an HTML part', async () => {
    const u = await t.unverifiedUser();
    await t.post(PATHS.requestVerification, { email: u.email });
    const mail = await t.mail.waitForMailTo(u.email);
    expect(mail.subject).toBe('Verify your Gatehouse email');
    expect(mail.text).toMatch(/http:\/\/app\.test\/verify-email\?token=[\w-]+\.[\w-]+\.[\w-]+/);
    expect(mail.html).toMatch(/<[a-z]/i);
    expect(mail.headers['from'] ?? '').toContain('no-reply@app.test');
  });
});

describe('mail and links follow APP_NAME and an APP_URL with a path', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      db: 'sqlite',
      env: { APP_NAME: 'Doorway', APP_URL: 'https://example.org/gate/' },
    });
  });
  afterAll(() => t?.close());

  it('subjects name the app; links start with the public address', async () => {
    expect(t.bootstrapLink).toMatch(/^https:\/\/example\.org\/gate\/signup\?code=\S+$/);
    const code = t.bootstrapLink!.split('code=')[1]!;
    const email = 'doorway@example.com';
    expect((await t.signUp(decodeURIComponent(code), email, 'Doorway-Pass-1234')).status).toBe(200);
    await t.post(PATHS.requestVerification, { email });
    await t.post(PATHS.requestReset, { email });
    const verify = await t.mail.waitForMailTo(email, 'Verify your Doorway email');
    const reset = await t.mail.waitForMailTo(email, 'Reset your Doorway password');
    expect(
      linksIn(verify.text).some((l) =>
        l.startsWith('https://example.org/gate/verify-email?token='),
      ),
    ).toBe(true);
    expect(
      linksIn(reset.text).some((l) =>
        l.startsWith('https://example.org/gate/reset-password?token='),
      ),
    ).toBe(true);
  });
});
