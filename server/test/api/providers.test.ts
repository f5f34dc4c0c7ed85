import { CONFIRM_IT_IS_YOU, REAUTH, staleSession, VERIFY_EMAIL_FIRST } from '../support/reauth.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS, subjects } from '../support/contract.js';
import type { Json } from '../support/http.js';
import { tokenFromMail } from '../support/mail.js';
import { TestOidcProvider } from '../support/oidc.js';
import {
  APP_URL,
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
} from '../support/server.js';
import { twoStepMember } from '../support/totp.js';
import { SoftAuthenticator } from '../support/webauthn.js';

const REDIRECT_URL = `${APP_URL}/api/oauth2-redirect`;
const PROVIDERS = '/api/gatehouse/providers';
const AUTH_METHODS = '/api/collections/users/auth-methods';
const TOKEN_FAILED = 'Failed to fetch OAuth2 token.';
const TIMEOUT = 'The sign-in provider did not answer in time. Please try again.';
const UNREACHABLE = 'The sign-in provider could not be reached. Please try again later.';
const LAST_WAY_IN =
  'This is your only way to sign in. Set a password (Forgot password on the login screen) or connect another way first.';
const S = subjects();
const connectedSubject = `Test ID was connected to your Gatehouse account`;

let logins = 0;
/** A fresh login name at the provider (its `sub`); its email is `<login>@example.com` unless set. */
function newLogin(tag = 'member'): string {
  logins += 1;
  return `${tag}-${process.pid}-${logins}-${Math.random().toString(36).slice(2, 8)}`;
}

function claimsOf(token: string): Json {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
}

describe.each(DATABASES)('sign-in with a provider on %s', (db) => {
  let t: TestServer;
  let idp: TestOidcProvider;

  beforeAll(async () => {
    idp = await TestOidcProvider.start([REDIRECT_URL]);
    t = await startTestServer({ db, env: { ...idp.env(), OAUTH2_TIMEOUT_MS: '3000' } });
    await t.initialUser();
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  /**
   * What the SDK's all-in-one flow does before auth-with-oauth2: auth-methods, the provider's
   * login page as `login`, back with a code and the state it was given.
   */
  async function providerCode(login: string, options: { clientId?: string } = {}) {
    const pb = sdkClient(t.url);
    const methods = await pb.collection('users').listAuthMethods();
    const p = methods.oauth2.providers.find((x) => x.name === 'oidc')!;
    const back = await idp.authorize(p.authURL + encodeURIComponent(REDIRECT_URL), login, options);
    expect(back.state).toBe(p.state);
    return { pb, code: back.code, codeVerifier: p.codeVerifier };
  }

  async function withProvider(login: string, createData?: Json, token?: string) {
    const { pb, code, codeVerifier } = await providerCode(login);
    if (token) pb.authStore.save(token, null);
    return pb
      .collection('users')
      .authWithOAuth2Code('oidc', code, codeVerifier, REDIRECT_URL, createData);
  }

  async function providersOf(token: string): Promise<Json> {
    const res = await t.get(PROVIDERS, token);
    expect(res.status, res.text).toBe(200);
    return res.body;
  }

  it("auth-methods: PocketBase's shape with a PKCE pair and state per provider", async () => {
    const res = await t.get(AUTH_METHODS);
    expect(res.status, res.text).toBe(200);
    expect(res.body.password).toEqual({ enabled: true, identityFields: ['email'] });
    expect(res.body.otp).toEqual({ enabled: true, duration: 180 });
    expect(res.body.mfa).toEqual({ enabled: true, duration: 600 });
    expect(res.body.oauth2.enabled).toBe(true);
    expect(res.body.oauth2.providers).toHaveLength(1);
    const p = res.body.oauth2.providers[0];
    expect(Object.keys(p).sort()).toEqual(
      [
        'authURL',
        'codeChallenge',
        'codeChallengeMethod',
        'codeVerifier',
        'displayName',
        'name',
        'state',
      ].sort(),
    );
    expect(p).toMatchObject({ name: 'oidc', displayName: 'Test ID', codeChallengeMethod: 'S256' });
    expect(p.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(p.authURL.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    expect(p.authURL.endsWith('&redirect_uri=')).toBe(true);
    const url = new URL(p.authURL);
    expect(url.searchParams.get('client_id')).toBe(idp.clientId);
    expect(url.searchParams.get('state')).toBe(p.state);
    expect(url.searchParams.get('code_challenge')).toBe(p.codeChallenge);
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    // The page names the providers for the buttons, never their secrets.
    const page = await t.request('GET', '/');
    expect(page.text).toContain('<meta name="sign-in-providers"');
    expect(page.text).toContain('Test ID');
    expect(page.text).not.toContain(idp.clientSecret);
    // A fresh pair on every call.
    const again = await t.get(AUTH_METHODS);
    expect(again.body.oauth2.providers[0].codeVerifier).not.toBe(p.codeVerifier);
    expect(again.body.oauth2.providers[0].state).not.toBe(p.state);
  });

  it('signs up a new member with an invite code (verified, as the provider says), then signs them in again', async () => {
    const login = newLogin();
    const email = `${login}@example.com`;
    const inviteCode = await t.newCode();
    const first = await withProvider(login, { inviteCode });
    expect(first.record.email).toBe(email);
    expect(first.record.verified).toBe(true);
    expect(first.record.inviteCode).toBe(inviteCode);
    expect(first.meta).toMatchObject({ id: login, email, isNew: true, accessToken: '' });
    expect(claimsOf(first.token)).toMatchObject({ id: first.record.id, type: 'auth' });

    // The code is used up: the inviter's list no longer has it, and it signs nobody else up.
    const reuse = await sdkError(withProvider(newLogin(), { inviteCode }));
    expect(reuse.status).toBe(400);
    expect(reuse.response.data.inviteCode.code).toBe('validation_invalid_invite_code');

    const again = await withProvider(login);
    expect(again.record.id).toBe(first.record.id);
    expect(again.meta!.isNew).toBe(false);
    expect(claimsOf(again.token).sid).not.toBe(claimsOf(first.token).sid);

    const list = await providersOf(again.token);
    expect(list.passwordSet).toBe(false);
    expect(list.items).toEqual([
      { name: 'oidc', displayName: 'Test ID', created: expect.any(String), canDisconnect: false },
    ]);
    // No password of the member's: the password sign-in of that email fails.
    expect((await t.login(email, 'any-password-at-all')).status).toBe(400);

    const events = await t.get(`${PATHS.securityEvents}?perPage=10`, again.token);
    const types = (events.body.items as Json[]).map((e) => `${e.type}:${e.detail.method ?? ''}`);
    expect(types).toEqual(
      expect.arrayContaining(['sign_up:oauth2', 'provider_linked:', 'sign_in:oauth2']),
    );
    // Joining is not a connection to tell the member about.
    await t.mail.expectNone((m) => m.to.includes(email) && m.subject === connectedSubject);
  });

  it('without an invite code a new identity gets 400 data.inviteCode and nothing is made', async () => {
    const login = newLogin();
    for (const createData of [undefined, {}, { inviteCode: '  ' }]) {
      const err = await sdkError(withProvider(login, createData));
      expect(err.status).toBe(400);
      expect(err.response).toEqual({
        data: { inviteCode: { code: 'validation_required', message: 'Cannot be blank.' } },
        message: MSG.create,
        status: 400,
      });
    }
    const bad = await sdkError(withProvider(login, { inviteCode: 'NOPE-NOPE-NOPE' }));
    expect(bad.response.data.inviteCode.code).toBe('validation_invalid_invite_code');
    // Nothing was made: the identity still needs a code.
    const made = await withProvider(login, { inviteCode: await t.newCode() });
    expect(made.meta!.isNew).toBe(true);
  });

  it('an unverified provider email makes an unverified account and sends its verification mail', async () => {
    const login = newLogin();
    const email = uniqueEmail('unverified-at-provider');
    idp.setAccount(login, { email, email_verified: false });
    const res = await withProvider(login, { inviteCode: await t.newCode() });
    expect(res.record.verified).toBe(false);
    expect(res.record.email).toBe(email);
    const mail = await t.mail.waitForMailTo(email, S.verify);
    const token = tokenFromMail(mail, `${APP_URL}/verify-email?token=`);
    expect((await t.post(PATHS.confirmVerification, { token })).status).toBe(204);
  });

  it('links to an existing account only when both the provider and the account say the email is verified', async () => {
    const member = await t.verifiedUser();
    const login = newLogin();
    idp.setAccount(login, { email: member.email, email_verified: true });
    const res = await withProvider(login);
    expect(res.record.id).toBe(member.id);
    expect(res.meta!.isNew).toBe(false);
    const notice = await t.mail.waitForMailTo(member.email, connectedSubject);
    expect(notice.text).toContain(`${APP_URL}/forgot-password`);
    expect((await providersOf(res.token)).items).toHaveLength(1);
    // The password still works, and the provider signs in from now on.
    expect((await t.login(member.email, member.password)).status).toBe(200);
  });

  it('CVE-2024-38351: an unverified account with the email is never linked nor taken over', async () => {
    // Someone signs up with the victim's email (never verified) and a password they know.
    const victimEmail = uniqueEmail('victim');
    const squatter = await t.unverifiedUser(victimEmail);
    const login = newLogin('victim');
    idp.setAccount(login, { email: victimEmail, email_verified: true });
    const err = await sdkError(withProvider(login, { inviteCode: await t.newCode() }));
    expect(err.status).toBe(400);
    expect(err.response.message).toBe(MSG.auth);
    expect(err.response.data.email.code).toBe('validation_account_not_verified');
    // Nothing changed: the squatter's account has no provider and stays unverified.
    const signIn = await t.login(victimEmail, squatter.password);
    expect(signIn.status).toBe(200);
    expect(signIn.body.record.verified).toBe(false);
    expect((await providersOf(signIn.body.token)).items).toEqual([]);
  });

  it('an email the provider has not verified never reaches an existing account', async () => {
    const member = await t.verifiedUser();
    const login = newLogin();
    idp.setAccount(login, { email: member.email, email_verified: false });
    const noCode = await sdkError(withProvider(login));
    expect(noCode.response.data.inviteCode.code).toBe('validation_required');
    const withCode = await sdkError(withProvider(login, { inviteCode: await t.newCode() }));
    expect(withCode.response.data.email.code).toBe('validation_not_unique');
    expect((await providersOf(member.token)).items).toEqual([]);
  });

  it('two-step sign-in still applies: 401 with an mfaId, then the code', async () => {
    const member = await twoStepMember(t);
    const login = newLogin();
    const connected = await withProvider(login, undefined, member.token);
    expect(connected.record.id).toBe(member.id);
    const err = await sdkError(withProvider(login));
    expect(err.status).toBe(401);
    expect(err.response.message).toBe(MSG.secondStep);
    const mfaId = err.response.mfaId as string;
    expect(mfaId).toBeTruthy();
    // (The current TOTP step was used to turn two-step on: a recovery code completes it.)
    const done = await t.post(PATHS.authWithTotp, { mfaId, code: member.recoveryCodes[0] });
    expect(done.status, done.text).toBe(200);
    expect(done.body.record.id).toBe(member.id);
  });

  it('a disabled member is refused with 403', async () => {
    const login = newLogin();
    const res = await withProvider(login, { inviteCode: await t.newCode() });
    const initial = await t.initialUser();
    const disable = await t.post(`/api/admin/members/${res.record.id}/disable`, {}, initial.token);
    expect(disable.status, disable.text).toBe(200);
    const err = await sdkError(withProvider(login));
    expect(err.status).toBe(403);
    expect(err.response.message).toBe('This account has been disabled.');
  });

  it('connecting while signed in links to that member and keeps their session', async () => {
    const member = await t.verifiedUser();
    const login = newLogin();
    const res = await withProvider(login, undefined, member.token);
    expect(res.record.id).toBe(member.id);
    expect(claimsOf(res.token).sid).toBe(claimsOf(member.token).sid);
    const sessions = await t.get(PATHS.sessions, member.token);
    expect(sessions.body.items).toHaveLength(1);
    await t.mail.waitForMailTo(member.email, connectedSubject);
    const list = await providersOf(member.token);
    expect(list).toMatchObject({
      passwordSet: true,
      items: [{ name: 'oidc', canDisconnect: true }],
    });

    // The same identity for another member, or a second one of this provider: 400.
    const other = await t.verifiedUser();
    const taken = await sdkError(withProvider(login, undefined, other.token));
    expect(taken.status).toBe(400);
    expect(taken.response.message).toBe(
      'This Test ID account is already connected to another member.',
    );
    const second = await sdkError(withProvider(newLogin(), undefined, member.token));
    expect(second.status).toBe(400);
    expect(second.response.message).toContain('already connected to another Test ID account');
    expect((await providersOf(other.token)).items).toEqual([]);
  });

  it("connecting needs a fresh session and a verified address; signing in again with a linked provider confirms it's you", async () => {
    const member = await t.verifiedUser();
    await staleSession(t, member.token);
    const stale = await sdkError(withProvider(newLogin(), undefined, member.token));
    expect(stale.status).toBe(403);
    expect(stale.response.message).toBe(CONFIRM_IT_IS_YOU);
    expect((await providersOf(member.token)).items).toEqual([]);

    const unverified = await t.unverifiedUser();
    const unverifiedToken = (await t.login(unverified.email, unverified.password)).body.token;
    const refused = await sdkError(withProvider(newLogin(), undefined, unverifiedToken));
    expect(refused.status).toBe(403);
    expect(refused.response.message).toBe(VERIFY_EMAIL_FIRST);
    expect((await providersOf(unverifiedToken)).items).toEqual([]);

    // A member who joined with a provider and has no password: the provider is how they confirm.
    const login = newLogin();
    const joined = await withProvider(login, { inviteCode: await t.newCode() });
    await staleSession(t, joined.token);
    expect((await t.get(REAUTH, joined.token)).body).toMatchObject({ fresh: false, methods: [] });
    expect((await t.get(PATHS.exportData, joined.token)).status).toBe(403);
    const again = await withProvider(login, undefined, joined.token);
    expect(claimsOf(again.token).sid).toBe(claimsOf(joined.token).sid);
    expect((await t.get(REAUTH, joined.token)).body.fresh).toBe(true);
    expect((await t.get(PATHS.exportData, joined.token)).status).toBe(200);
  });

  it('disconnecting: never the last way in; otherwise 204 and the identity no longer signs in', async () => {
    const login = newLogin();
    const email = `${login}@example.com`;
    const joined = await withProvider(login, { inviteCode: await t.newCode() });
    const refused = await t.del(`${PROVIDERS}/oidc`, joined.token);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ data: {}, message: LAST_WAY_IN, status: 400 });
    expect((await t.del(`${PROVIDERS}/github`, joined.token)).status).toBe(404);
    expect((await t.del(`${PROVIDERS}/oidc`)).status).toBe(401);

    // A password of their own (set by reset) is another way in.
    const password = strongPassword();
    const reset = await t.post(PATHS.confirmReset, {
      token: await t.resetToken(email),
      password,
      passwordConfirm: password,
    });
    expect(reset.status, reset.text).toBe(204);
    const token = await t.tokenFor({ email, password });
    expect((await providersOf(token)).passwordSet).toBe(true);
    const gone = await t.del(`${PROVIDERS}/oidc`, token);
    expect(gone.status, gone.text).toBe(204);
    expect((await providersOf(token)).items).toEqual([]);
    const events = await t.get(`${PATHS.securityEvents}?perPage=5`, token);
    expect(events.body.items[0]).toMatchObject({ type: 'provider_unlinked' });
  });

  it('a passkey counts as a way in, and the last way in cannot go, even when both are removed at once', async () => {
    // Joined with the provider (no password), then added a passkey: either may go, not both.
    const joined = await withProvider(newLogin(), { inviteCode: await t.newCode() });
    const key = new SoftAuthenticator(APP_URL);
    const options = await t.post(PATHS.passkeyOptions, {}, joined.token);
    const added = await t.post(
      PATHS.passkeys,
      { name: 'Laptop', response: key.register(options.body) },
      joined.token,
    );
    expect(added.status, added.text).toBe(200);
    expect((await providersOf(joined.token)).items).toMatchObject([{ canDisconnect: true }]);

    // Two tabs remove one each at the same moment: one goes through, the other is refused.
    const [passkey, provider] = await Promise.all([
      t.del(PATHS.passkey(added.body.id), joined.token),
      t.del(`${PROVIDERS}/oidc`, joined.token),
    ]);
    expect([passkey.status, provider.status].sort()).toEqual([204, 400]);
    const refused = passkey.status === 400 ? passkey : provider;
    expect(refused.body).toEqual({ data: {}, message: LAST_WAY_IN, status: 400 });
    const passkeysLeft = (await t.get(PATHS.passkeys, joined.token)).body.items.length;
    const providersLeft = (await providersOf(joined.token)).items.length;
    expect(passkeysLeft + providersLeft).toBe(1);

    // The one left cannot go either.
    const last = passkeysLeft
      ? await t.del(PATHS.passkey(added.body.id), joined.token)
      : await t.del(`${PROVIDERS}/oidc`, joined.token);
    expect(last.status).toBe(400);
    expect(last.body.message).toBe(LAST_WAY_IN);
  });

  it('forged, replayed or mismatched codes are refused and change nothing', async () => {
    const login = newLogin();
    const pb = sdkClient(t.url);
    const forged = await sdkError(
      pb
        .collection('users')
        .authWithOAuth2Code('oidc', 'forged-code', 'x'.repeat(43), REDIRECT_URL, {
          inviteCode: await t.newCode(),
        }),
    );
    expect(forged.status).toBe(400);
    expect(forged.response.message).toBe(TOKEN_FAILED);

    // A code with a verifier that is not the one its challenge was made from (a forged state's
    // flow): the provider refuses it.
    const a = await providerCode(login);
    const b = await providerCode(login);
    const swapped = await sdkError(
      pb.collection('users').authWithOAuth2Code('oidc', a.code, b.codeVerifier, REDIRECT_URL, {
        inviteCode: await t.newCode(),
      }),
    );
    expect(swapped.response.message).toBe(TOKEN_FAILED);

    // A code used once cannot be used again.
    const c = await providerCode(login);
    const inviteCode = await t.newCode();
    const ok = await pb
      .collection('users')
      .authWithOAuth2Code('oidc', c.code, c.codeVerifier, REDIRECT_URL, { inviteCode });
    expect(ok.meta!.isNew).toBe(true);
    const replay = await sdkError(
      pb.collection('users').authWithOAuth2Code('oidc', c.code, c.codeVerifier, REDIRECT_URL),
    );
    expect(replay.response.message).toBe(TOKEN_FAILED);

    // A code issued to another client of the provider.
    const other = await providerCode(newLogin(), { clientId: idp.otherClientId });
    const foreign = await sdkError(
      pb
        .collection('users')
        .authWithOAuth2Code('oidc', other.code, other.codeVerifier, REDIRECT_URL, {
          inviteCode: await t.newCode(),
        }),
    );
    expect(foreign.response.message).toBe(TOKEN_FAILED);

    // Another redirect address than this server's is refused before the provider is asked.
    const d = await providerCode(newLogin());
    const elsewhere = await sdkError(
      pb
        .collection('users')
        .authWithOAuth2Code('oidc', d.code, d.codeVerifier, 'https://evil.test/cb'),
    );
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.response.data.redirectURL.code).toBe('validation_invalid_redirect_url');
  });

  it('an unknown provider: 400 data.provider on the server, "Missing or invalid provider" in the SDK', async () => {
    const res = await t.post('/api/collections/users/auth-with-oauth2', {
      provider: 'myspace',
      code: 'x',
      codeVerifier: 'y',
      redirectURL: REDIRECT_URL,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      data: {
        provider: {
          code: 'validation_invalid_provider',
          message: 'Provider with name myspace is missing or is not enabled.',
        },
      },
      message: MSG.load,
      status: 400,
    });
    const err = await sdkError(
      sdkClient(t.url)
        .collection('users')
        .authWithOAuth2({ provider: 'myspace', urlCallback: () => {} }),
    );
    expect((err.originalError as Error).message).toBe('Missing or invalid provider "myspace".');
  });

  it('a provider error, a provider that is down, and one that is too slow: a clear 400, no hang', async () => {
    const login = newLogin();
    const inviteCode = await t.newCode();

    const a = await providerCode(login);
    idp.mode = 'error';
    const failed = await sdkError(
      a.pb.collection('users').authWithOAuth2Code('oidc', a.code, a.codeVerifier, REDIRECT_URL, {
        inviteCode,
      }),
    );
    expect(failed.status).toBe(400);
    expect(failed.response.message).toBe(TOKEN_FAILED);
    idp.mode = 'normal';

    const b = await providerCode(login);
    await idp.down();
    try {
      const down = await sdkError(
        b.pb.collection('users').authWithOAuth2Code('oidc', b.code, b.codeVerifier, REDIRECT_URL, {
          inviteCode,
        }),
      );
      expect(down.status).toBe(400);
      expect(down.response.message).toBe(UNREACHABLE);
    } finally {
      await idp.up();
    }

    const c = await providerCode(login);
    idp.mode = 'slow';
    const started = Date.now();
    try {
      const slow = await sdkError(
        c.pb.collection('users').authWithOAuth2Code('oidc', c.code, c.codeVerifier, REDIRECT_URL, {
          inviteCode,
        }),
      );
      expect(slow.status).toBe(400);
      expect(slow.response.message).toBe(TIMEOUT);
      // Answered at the time limit (3 s here), long before the provider would have.
      expect(Date.now() - started).toBeLessThan(idp.slowMs);
    } finally {
      await idp.down();
      await idp.up();
    }
    // Nothing was made meanwhile: the code still works.
    const d = await withProvider(login, { inviteCode });
    expect(d.meta!.isNew).toBe(true);
  });
});
