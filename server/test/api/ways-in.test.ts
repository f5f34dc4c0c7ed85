import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS, subjects } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import type { ApiResponse } from '../support/http.js';
import { TestOidcProvider } from '../support/oidc.js';
import { VERIFY_EMAIL_FIRST } from '../support/reauth.js';
import { sdkClient } from '../support/sdk.js';
import { APP_URL, DATABASES, startTestServer, type TestServer } from '../support/server.js';
import { mfaIdFor, totpCode, twoStepMember } from '../support/totp.js';
import { SoftAuthenticator } from '../support/webauthn.js';

/**
 * Every way in meets the same gate (core/sign-in.ts): each way × {disabled, unverified, two-step
 * on}. A disabled account gets no session by any way; a passkey on an unverified account (added
 * before passkeys needed a verified address) is refused; a first factor leads to the second step
 * when two-step sign-in is on, while a passkey and the second step itself complete the sign-in. A
 * code by email verifies an unverified account, which ends the sessions it had.
 */

const REDIRECT_URL = `${APP_URL}/api/oauth2-redirect`;
const DISABLED = 'This account has been disabled.';

type Way =
  'password' | 'authenticator code' | 'recovery code' | 'passkey' | 'provider' | 'email code';
type State = 'disabled' | 'unverified' | 'two-step on';

/**
 * What each way in × state answers: a session (200), the second step (401) or a refusal.
 * `endsOthers`: the sign-in also ends the sessions the member had (it verified the account).
 */
const EXPECTED: Record<
  Way,
  Record<State, { status: number; message?: string; endsOthers?: boolean }>
> = {
  password: {
    disabled: { status: 403, message: DISABLED },
    unverified: { status: 200 },
    'two-step on': { status: 401 },
  },
  'authenticator code': {
    disabled: { status: 403, message: DISABLED },
    unverified: { status: 200 },
    'two-step on': { status: 200 },
  },
  'recovery code': {
    disabled: { status: 403, message: DISABLED },
    unverified: { status: 200 },
    'two-step on': { status: 200 },
  },
  passkey: {
    disabled: { status: 403, message: DISABLED },
    unverified: { status: 403, message: VERIFY_EMAIL_FIRST },
    'two-step on': { status: 200 },
  },
  provider: {
    disabled: { status: 403, message: DISABLED },
    unverified: { status: 200 },
    'two-step on': { status: 401 },
  },
  'email code': {
    disabled: { status: 403, message: DISABLED },
    unverified: { status: 200, endsOthers: true },
    'two-step on': { status: 401 },
  },
};

let logins = 0;

describe.each(DATABASES)('the sign-in gate on %s', (db) => {
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

  async function providerSignIn(login: string, inviteCode?: string): Promise<ApiResponse> {
    const pb = sdkClient(t.url);
    const methods = await pb.collection('users').listAuthMethods();
    const p = methods.oauth2.providers.find((x) => x.name === 'oidc')!;
    const back = await idp.authorize(p.authURL + encodeURIComponent(REDIRECT_URL), login);
    return t.post('/api/collections/users/auth-with-oauth2', {
      provider: 'oidc',
      code: back.code,
      codeVerifier: p.codeVerifier,
      redirectURL: REDIRECT_URL,
      ...(inviteCode ? { createData: { inviteCode } } : {}),
    });
  }

  /** Asks for a sign-in code by email: the otpId, and the code from the mail. */
  async function emailCode(email: string) {
    const res = await t.post(PATHS.requestOtp, { email });
    expect(res.status, res.text).toBe(200);
    const mail = await t.mail.waitForMailTo(email, subjects().signInCode);
    const code = /^(\d{8})\r?$/m.exec(mail.text)?.[1];
    expect(code, mail.text).toBeDefined();
    return { otpId: res.body.otpId as string, code: code! };
  }

  /** A member who can use `way`, and the attempt that uses it (run after the state is set). */
  async function memberWith(way: Way) {
    if (way === 'password') {
      const u = await t.verifiedUser();
      return { id: u.id, token: u.token, attempt: () => t.login(u.email, u.password) };
    }
    if (way === 'authenticator code' || way === 'recovery code') {
      const m = await twoStepMember(t);
      let mfaId = '';
      return {
        id: m.id,
        token: m.token,
        // The password step happens before the state changes (a sign-in half-way through).
        before: async () => void (mfaId = await mfaIdFor(t, m)),
        attempt: () =>
          t.post(PATHS.authWithTotp, {
            mfaId,
            code: way === 'recovery code' ? m.recoveryCodes[0] : totpCode(m.secret, 1),
          }),
      };
    }
    if (way === 'email code') {
      const u = await t.verifiedUser();
      let sent = { otpId: '', code: '' };
      return {
        id: u.id,
        token: u.token,
        // The code is asked for before the state changes (a disabled account is sent none).
        before: async () => void (sent = await emailCode(u.email)),
        attempt: () => t.post(PATHS.authWithOtp, { otpId: sent.otpId, password: sent.code }),
      };
    }
    if (way === 'passkey') {
      const u = await t.verifiedUser();
      const key = new SoftAuthenticator(APP_URL);
      const options = await t.post(PATHS.passkeyOptions, {}, u.token);
      const added = await t.post(
        PATHS.passkeys,
        { name: 'Key', response: key.register(options.body) },
        u.token,
      );
      expect(added.status, added.text).toBe(200);
      return {
        id: u.id,
        token: u.token,
        attempt: async () => {
          const login = await t.post(PATHS.passkeyLoginOptions, {});
          return t.post(PATHS.authWithPasskey, { response: key.authenticate(login.body) });
        },
      };
    }
    logins += 1;
    const login = `gate-${process.pid}-${logins}-${Math.random().toString(36).slice(2, 8)}`;
    const first = await providerSignIn(login, await t.newCode());
    expect(first.status, first.text).toBe(200);
    return {
      id: first.body.record.id as string,
      token: first.body.token as string,
      attempt: () => providerSignIn(login),
    };
  }

  async function setState(state: State, member: { id: string; token: string }, way: Way) {
    if (state === 'disabled') {
      const initial = await t.initialUser();
      const operator = await t.tokenFor(initial);
      const res = await t.post(`/api/admin/members/${member.id}/disable`, {}, operator);
      expect(res.status, res.text).toBe(200);
    } else if (state === 'unverified') {
      // Accounts from before the rules: the database's own change notice tells every instance.
      await withDatabase(t, (d) =>
        d.updateTable('users').set({ verified: 0 }).where('id', '=', member.id).execute(),
      );
      if (db === 'postgres') await new Promise((r) => setTimeout(r, 1100));
    } else if (way !== 'authenticator code' && way !== 'recovery code') {
      const setup = await t.post(PATHS.totpSetup, {}, member.token);
      expect(setup.status, setup.text).toBe(200);
      const enable = await t.post(
        PATHS.totpEnable,
        { code: totpCode(setup.body.secret) },
        member.token,
      );
      expect(enable.status, enable.text).toBe(200);
    }
  }

  const sessionsOf = (id: string) =>
    withDatabase(
      t,
      async (d) =>
        (await d.selectFrom('sessions').select('id').where('user_id', '=', id).execute()).length,
    );

  for (const way of Object.keys(EXPECTED) as Way[]) {
    for (const state of Object.keys(EXPECTED[way]) as State[]) {
      const expected = EXPECTED[way][state];
      it(`${way} × ${state}: ${expected.status}${expected.message ? ` ${expected.message}` : ''}`, async () => {
        const member = await memberWith(way);
        await member.before?.();
        await setState(state, member, way);
        const before = await sessionsOf(member.id);
        const res = await member.attempt();
        expect(res.status, res.text).toBe(expected.status);
        if (expected.message) expect(res.body.message).toBe(expected.message);
        if (expected.status === 401) expect(res.body.mfaId).toEqual(expect.any(String));
        const after = await sessionsOf(member.id);
        if (expected.endsOthers) {
          // Only the new session is left: the member's token from before has ended.
          expect(after).toBe(1);
          expect((await t.post(PATHS.refresh, {}, member.token)).status).toBe(401);
        } else expect(after - before).toBe(expected.status === 200 ? 1 : 0);
        if (expected.status === 200) expect(res.body.token).toEqual(expect.any(String));
      });
    }
  }

  it('a disabled member enabled again does not get back a session opened while disabled', async () => {
    const member = await memberWith('passkey');
    await setState('disabled', member, 'passkey');
    expect((await member.attempt()).status).toBe(403);
    const operator = await t.tokenFor(await t.initialUser());
    expect((await t.post(`/api/admin/members/${member.id}/enable`, {}, operator)).status).toBe(200);
    expect(await sessionsOf(member.id)).toBe(0);
    expect((await member.attempt()).status).toBe(200);
  });
});
