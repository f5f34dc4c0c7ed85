import { createHash } from 'node:crypto';
import PocketBase, { ClientResponseError } from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAuthResponse } from '../support/checks.js';
import { envelope, ID_RE, MSG, PATHS, subjects } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import { DATABASES, startTestServer, testTokenSecret, type TestServer } from '../support/server.js';
import { scenarios, type Scenario, type Vars } from '../support/table.js';
import { mfaIdFor, totpCode, twoStepMember } from '../support/totp.js';

const S = subjects();
const RECOVERY_RE = /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/;
const invalidCode = envelope(400, MSG.validate, { code: 'validation_invalid_code' });
const invalidMfa = envelope(400, MSG.validate, { mfaId: 'validation_invalid_mfa_id' });
const wrongPassword = envelope(400, MSG.validate, { password: 'validation_invalid_password' });

/** A two-step member as scenario variables, with a fresh mfaId from a right password. */
async function member(s: TestServer): Promise<Vars> {
  const m = await twoStepMember(s);
  const mfaId = await mfaIdFor(s, m);
  return {
    email: m.email,
    password: m.password,
    id: m.id,
    token: m.token,
    secret: m.secret,
    mfaId,
    recovery: m.recoveryCodes[0]!,
    recovery2: m.recoveryCodes[1]!,
  };
}

/** How recovery codes were stored before they were keyed: SHA-256 of `id:code`, base64url. */
const unkeyedHash = (userId: string, code: string) =>
  createHash('sha256')
    .update(`${userId}:${code.replace(/[\s-]/g, '').toLowerCase()}`)
    .digest('base64url');

const storedHashes = (s: TestServer, userId: string) =>
  withDatabase(s, (d) =>
    d
      .selectFrom('recovery_codes')
      .select(['code_hash', 'used_at'])
      .where('user_id', '=', userId)
      .execute(),
  );

const mailTo =
  (s: TestServer, email: string, subject: string) => (m: { to: string[]; subject: string }) =>
    m.subject === subject && m.to.includes(email);

async function events(
  s: TestServer,
  token: string,
): Promise<{ type: string; outcome: string; detail: Record<string, unknown> }[]> {
  const res = await s.get(`${PATHS.securityEvents}?perPage=100`, token);
  expect(res.status, res.text).toBe(200);
  return res.body.items;
}

describe.each(DATABASES)('two-step sign-in (authenticator app, recovery codes) on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
  });
  afterAll(() => t?.close());

  const rows: Scenario[] = [
    // ---- setting it up
    {
      name: 'setup: 200 {secret, uri, qrSvg}; nothing is on yet, no mail',
      before: async (s) => {
        const u = await s.verifiedUser();
        return { email: u.email, password: u.password, token: u.token };
      },
      method: 'POST',
      path: PATHS.totpSetup,
      headers: (v) => ({ Authorization: v.token! }),
      status: 200,
      after: async (s, v, res) => {
        expect(Object.keys(res.body).sort()).toEqual(['qrSvg', 'secret', 'uri']);
        expect(res.body.secret).toMatch(/^[A-Z2-7]{32}$/);
        const uri = new URL(res.body.uri);
        expect(uri.protocol).toBe('otpauth:');
        expect(uri.host).toBe('totp');
        expect(decodeURIComponent(uri.pathname)).toBe(`/Gatehouse:${v.email}`);
        expect(uri.searchParams.get('secret')).toBe(res.body.secret);
        expect(uri.searchParams.get('issuer')).toBe('Gatehouse');
        expect(uri.searchParams.get('algorithm')).toBe('SHA1');
        expect(uri.searchParams.get('digits')).toBe('6');
        expect(uri.searchParams.get('period')).toBe('30');
        expect(res.body.qrSvg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
        expect((await s.get(PATHS.totp, v.token)).body).toEqual({
          enabled: false,
          recoveryCodesLeft: 0,
        });
        expect((await s.login(v.email!, v.password!)).status).toBe(200);
        await s.mail.expectNone(mailTo(s, v.email!, S.twoStepOn));
      },
    },
    {
      name: 'setup, enable, status, disable, recovery codes: a guest gets 401',
      method: 'POST',
      path: PATHS.totpSetup,
      status: 401,
      error: { message: MSG.needsAuth },
      after: async (s) => {
        for (const path of [PATHS.totpEnable, PATHS.totpDisable, PATHS.recoveryCodes]) {
          expect((await s.post(path, {})).body).toEqual(envelope(401, MSG.needsAuth));
        }
        expect((await s.get(PATHS.totp)).status).toBe(401);
      },
    },
    {
      name: 'enable: a right code turns it on: 10 recovery codes, the notice mail, the event',
      before: async (s) => {
        const u = await s.verifiedUser();
        const setup = await s.post(PATHS.totpSetup, {}, u.token);
        return { email: u.email, password: u.password, token: u.token, secret: setup.body.secret };
      },
      method: 'POST',
      path: PATHS.totpEnable,
      headers: (v) => ({ Authorization: v.token! }),
      body: (v) => ({ code: totpCode(v.secret!) }),
      status: 200,
      after: async (s, v, res) => {
        expect(Object.keys(res.body)).toEqual(['recoveryCodes']);
        const codes = res.body.recoveryCodes as string[];
        expect(codes).toHaveLength(10);
        expect(new Set(codes).size).toBe(10);
        for (const c of codes) expect(c).toMatch(RECOVERY_RE);
        expect((await s.get(PATHS.totp, v.token)).body).toEqual({
          enabled: true,
          recoveryCodesLeft: 10,
        });
        const notice = await s.mail.waitForMailTo(v.email!, S.twoStepOn);
        expect(notice.text).toContain('127.0.0.1');
        expect(notice.text).not.toContain(v.secret!);
        expect((await events(s, v.token!)).map((e) => e.type)).toContain('totp_enabled');
        // The sign-in now stops after the password.
        const login = await s.login(v.email!, v.password!);
        expect(login.status).toBe(401);
        // The code that turned it on is spent: it cannot pass a sign-in.
        const again = await s.post(PATHS.authWithTotp, {
          mfaId: login.body.mfaId,
          code: totpCode(v.secret!),
        });
        expect(again.body).toEqual(invalidCode);
      },
    },
    {
      name: 'enable: a wrong code → 400 data.code, still off, no mail',
      before: async (s) => {
        const u = await s.verifiedUser();
        const setup = await s.post(PATHS.totpSetup, {}, u.token);
        return { email: u.email, password: u.password, token: u.token, secret: setup.body.secret };
      },
      method: 'POST',
      path: PATHS.totpEnable,
      headers: (v) => ({ Authorization: v.token! }),
      body: (v) => ({ code: totpCode(v.secret!, 5) }),
      status: 400,
      json: invalidCode,
      after: async (s, v) => {
        expect((await s.get(PATHS.totp, v.token)).body.enabled).toBe(false);
        expect((await s.login(v.email!, v.password!)).status).toBe(200);
        await s.mail.expectNone(mailTo(s, v.email!, S.twoStepOn));
      },
    },
    {
      name: 'enable: a blank code → validation_required',
      before: async (s) => ({ token: (await s.verifiedUser()).token }),
      method: 'POST',
      path: PATHS.totpEnable,
      headers: (v) => ({ Authorization: v.token! }),
      body: { code: ' ' },
      status: 400,
      error: { message: MSG.validate, fields: { code: 'validation_required' } },
    },
    {
      name: 'enable before setup → 400 "Set up the authenticator app first."',
      before: async (s) => ({ token: (await s.verifiedUser()).token }),
      method: 'POST',
      path: PATHS.totpEnable,
      headers: (v) => ({ Authorization: v.token! }),
      body: { code: '123456' },
      status: 400,
      error: { message: MSG.notSetUp },
    },
    {
      name: 'setup while on → 400 "Two-step sign-in is already on.", the seed in use is kept',
      before: member,
      method: 'POST',
      path: PATHS.totpSetup,
      headers: (v) => ({ Authorization: v.token! }),
      status: 400,
      error: { message: MSG.twoStepOn },
      after: async (s, v) => {
        const res = await s.post(PATHS.authWithTotp, {
          mfaId: v.mfaId,
          code: totpCode(v.secret!, 1),
        });
        expect(res.status, res.text).toBe(200);
      },
    },
    {
      name: 'enable: the code must come from the seed of this member',
      before: async (s) => {
        const u = await s.verifiedUser();
        await s.post(PATHS.totpSetup, {}, u.token);
        const other = await twoStepMember(s);
        return { token: u.token, otherSecret: other.secret };
      },
      method: 'POST',
      path: PATHS.totpEnable,
      headers: (v) => ({ Authorization: v.token! }),
      body: (v) => ({ code: totpCode(v.otherSecret!) }),
      status: 400,
      json: invalidCode,
    },

    // ---- signing in with two steps
    {
      name: 'sign-in, step one: a right password answers 401 with an mfaId and no token',
      before: async (s) => {
        const m = await twoStepMember(s);
        return { email: m.email, password: m.password, token: m.token };
      },
      method: 'POST',
      path: PATHS.login,
      body: (v) => ({ identity: v.email, password: v.password }),
      status: 401,
      after: async (s, v, res) => {
        expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'mfaId', 'status']);
        expect(res.body).toMatchObject({ data: {}, message: MSG.secondStep, status: 401 });
        expect(res.body.mfaId).toMatch(ID_RE);
        expect(res.text).not.toContain('token');
        const types = (await events(s, v.token!)).map((e) => e.type);
        expect(types).toContain('second_step_required');
      },
    },
    {
      name: 'sign-in, step one: a wrong password is the usual 400, without an mfaId',
      before: async (s) => {
        const m = await twoStepMember(s);
        return { email: m.email };
      },
      method: 'POST',
      path: PATHS.login,
      body: (v) => ({ identity: v.email, password: 'Not-The-Password-9' }),
      status: 400,
      json: envelope(400, MSG.auth),
    },
    {
      name: 'auth-with-totp: mfaId + current code → 200 {token, record}, a session (method totp)',
      before: member,
      method: 'POST',
      path: PATHS.authWithTotp,
      body: (v) => ({ mfaId: v.mfaId, code: totpCode(v.secret!, 1) }),
      status: 200,
      after: async (s, v, res) => {
        expectAuthResponse(res, v.email!);
        const sessions = await s.get(PATHS.sessions, res.body.token);
        expect(sessions.status).toBe(200);
        expect(sessions.body.items).toHaveLength(2);
        const signIns = (await events(s, res.body.token)).filter((e) => e.type === 'sign_in');
        expect(signIns[0]).toMatchObject({ outcome: 'success', detail: { method: 'totp' } });
        // The mfaId served its one sign-in.
        const again = await s.post(PATHS.authWithTotp, {
          mfaId: v.mfaId,
          code: totpCode(v.secret!, 1),
        });
        expect(again.body).toEqual(invalidMfa);
      },
    },
    {
      name: 'auth-with-totp: a code is accepted once (replay with a new mfaId refused)',
      before: async (s) => {
        const v = await member(s);
        const code = totpCode(v.secret!, 1);
        const first = await s.post(PATHS.authWithTotp, { mfaId: v.mfaId, code });
        expect(first.status, first.text).toBe(200);
        return { ...v, code, mfaId: await mfaIdFor(s, v as never) };
      },
      method: 'POST',
      path: PATHS.authWithTotp,
      body: (v) => ({ mfaId: v.mfaId, code: v.code }),
      status: 400,
      json: invalidCode,
      after: async (s, v) => {
        // An earlier code of the window is refused too; the mfaId is still usable.
        expect(
          (await s.post(PATHS.authWithTotp, { mfaId: v.mfaId, code: totpCode(v.secret!) })).body,
        ).toEqual(invalidCode);
        const signIns = (await events(s, v.token!)).filter((e) => e.type === 'sign_in');
        expect(signIns[0]).toMatchObject({
          outcome: 'failure',
          detail: { method: 'totp', reason: 'wrong_code' },
        });
      },
    },
    {
      name: 'auth-with-totp: a recovery code works once (spaces, dashes and case ignored)',
      before: member,
      method: 'POST',
      path: PATHS.authWithTotp,
      body: (v) => ({ mfaId: v.mfaId, code: ` ${v.recovery!.toUpperCase()} ` }),
      status: 200,
      after: async (s, v, res) => {
        expectAuthResponse(res, v.email!);
        expect((await s.get(PATHS.totp, res.body.token)).body.recoveryCodesLeft).toBe(9);
        const signIns = (await events(s, v.token!)).filter((e) => e.type === 'sign_in');
        expect(signIns[0]).toMatchObject({ detail: { method: 'recovery_code' } });
        const mfaId = await mfaIdFor(s, v as never);
        const again = await s.post(PATHS.authWithTotp, { mfaId, code: v.recovery });
        expect(again.body).toEqual(invalidCode);
        const other = await s.post(PATHS.authWithTotp, {
          mfaId,
          code: v.recovery2!.replaceAll('-', ''),
        });
        expect(other.status, other.text).toBe(200);
      },
    },
    {
      name: "auth-with-totp: another member's code and recovery code are refused",
      before: async (s) => {
        const v = await member(s);
        const other = await twoStepMember(s);
        return { ...v, otherSecret: other.secret, otherRecovery: other.recoveryCodes[0]! };
      },
      method: 'POST',
      path: PATHS.authWithTotp,
      body: (v) => ({ mfaId: v.mfaId, code: totpCode(v.otherSecret!, 1) }),
      status: 400,
      json: invalidCode,
      after: async (s, v) => {
        const res = await s.post(PATHS.authWithTotp, { mfaId: v.mfaId, code: v.otherRecovery });
        expect(res.body).toEqual(invalidCode);
      },
    },
    {
      name: 'auth-with-totp: an unknown mfaId → 400 data.mfaId',
      before: member,
      method: 'POST',
      path: PATHS.authWithTotp,
      body: (v) => ({ mfaId: 'aaaaaaaaaaaaaaa', code: totpCode(v.secret!, 1) }),
      status: 400,
      json: invalidMfa,
    },
    {
      name: 'auth-with-totp: blank fields → validation_required on both',
      method: 'POST',
      path: PATHS.authWithTotp,
      body: { mfaId: '', code: null },
      status: 400,
      error: {
        message: MSG.validate,
        fields: { mfaId: 'validation_required', code: 'validation_required' },
      },
    },
    {
      name: 'auth-with-totp: fields of the wrong type → loading message',
      method: 'POST',
      path: PATHS.authWithTotp,
      body: { mfaId: 12, code: ['123456'] },
      status: 400,
      json: envelope(400, MSG.load),
    },
    {
      name: 'auth-with-totp: 5 wrong codes in a row lock the second step for 15 minutes (429)',
      before: async (s) => {
        const v = await member(s);
        for (let i = 0; i < 5; i++) {
          const res = await s.post(PATHS.authWithTotp, { mfaId: v.mfaId, code: `00000${i}` });
          expect(res.body).toEqual(invalidCode);
        }
        return v;
      },
      method: 'POST',
      path: PATHS.authWithTotp,
      body: (v) => ({ mfaId: v.mfaId, code: totpCode(v.secret!, 1) }),
      status: 429,
      json: envelope(429, MSG[429]),
      after: async (s, v) => {
        const login = await s.login(v.email!, v.password!);
        // The lock never tells a password guesser anything: a right password still gets an
        // mfaId, a wrong one the usual 400.
        expect(login.status).toBe(401);
        expect((await s.login(v.email!, 'Wrong-Password-77')).body).toEqual(
          envelope(400, MSG.auth),
        );
        expect(
          (await s.post(PATHS.authWithTotp, { mfaId: login.body.mfaId, code: v.recovery })).status,
        ).toBe(429);
        const types = (await events(s, v.token!)).map((e) => e.type);
        expect(types).toContain('second_step_locked');
        // Another member is not locked.
        const other = await member(s);
        const ok = await s.post(PATHS.authWithTotp, {
          mfaId: other.mfaId,
          code: totpCode(other.secret!, 1),
        });
        expect(ok.status, ok.text).toBe(200);
      },
    },

    // ---- turning it off, new recovery codes
    {
      name: 'disable: a wrong password → 400 data.password; still on, no mail',
      before: member,
      method: 'POST',
      path: PATHS.totpDisable,
      headers: (v) => ({ Authorization: v.token! }),
      body: { password: 'Not-The-Password-9' },
      status: 400,
      json: wrongPassword,
      after: async (s, v) => {
        expect((await s.get(PATHS.totp, v.token)).body.enabled).toBe(true);
        expect((await s.login(v.email!, v.password!)).status).toBe(401);
        await s.mail.expectNone(mailTo(s, v.email!, S.twoStepOff));
      },
    },
    {
      name: 'disable: the password turns it off: 204, the notice mail, sign-in is one step again',
      before: member,
      method: 'POST',
      path: PATHS.totpDisable,
      headers: (v) => ({ Authorization: v.token! }),
      body: (v) => ({ password: v.password }),
      status: 204,
      empty: true,
      after: async (s, v) => {
        expect((await s.get(PATHS.totp, v.token)).body).toEqual({
          enabled: false,
          recoveryCodesLeft: 0,
        });
        await s.mail.waitForMailTo(v.email!, S.twoStepOff);
        expectAuthResponse(await s.login(v.email!, v.password!), v.email!);
        // The mfaId opened before is void.
        const res = await s.post(PATHS.authWithTotp, { mfaId: v.mfaId, code: v.recovery });
        expect(res.body).toEqual(invalidMfa);
        expect((await events(s, v.token!)).map((e) => e.type)).toContain('totp_disabled');
        // Not on any more: a second disable says so.
        const again = await s.post(PATHS.totpDisable, { password: v.password }, v.token);
        expect(again.body).toEqual(envelope(400, MSG.twoStepOff));
      },
    },
    {
      name: 'recovery codes: a wrong password → 400 data.password; the old codes still work, no mail',
      before: member,
      method: 'POST',
      path: PATHS.recoveryCodes,
      headers: (v) => ({ Authorization: v.token! }),
      body: { password: '' },
      status: 400,
      json: wrongPassword,
      after: async (s, v) => {
        const res = await s.post(PATHS.authWithTotp, { mfaId: v.mfaId, code: v.recovery });
        expect(res.status).toBe(200);
        await s.mail.expectNone(mailTo(s, v.email!, S.recoveryCodes));
      },
    },
    {
      name: 'recovery codes: the password makes 10 new ones; the old ones stop working; notice mail',
      before: member,
      method: 'POST',
      path: PATHS.recoveryCodes,
      headers: (v) => ({ Authorization: v.token! }),
      body: (v) => ({ password: v.password }),
      status: 200,
      after: async (s, v, res) => {
        const codes = res.body.recoveryCodes as string[];
        expect(codes).toHaveLength(10);
        expect(codes).not.toContain(v.recovery);
        await s.mail.waitForMailTo(v.email!, S.recoveryCodes);
        const old = await s.post(PATHS.authWithTotp, { mfaId: v.mfaId, code: v.recovery });
        expect(old.body).toEqual(invalidCode);
        const fresh = await s.post(PATHS.authWithTotp, { mfaId: v.mfaId, code: codes[3] });
        expect(fresh.status, fresh.text).toBe(200);
      },
    },
    {
      name: 'recovery codes while two-step is off → 400 "Two-step sign-in is not on."',
      before: async (s) => {
        const u = await s.verifiedUser();
        return { token: u.token, password: u.password };
      },
      method: 'POST',
      path: PATHS.recoveryCodes,
      headers: (v) => ({ Authorization: v.token! }),
      body: (v) => ({ password: v.password }),
      status: 400,
      error: { message: MSG.twoStepOff },
    },

    // ---- a password reset keeps it on; the export holds no secret
    {
      name: 'a password reset keeps two-step on: the new password still asks for the code',
      before: async (s) => {
        const v = await member(s);
        return { ...v, resetToken: await s.resetToken(v.email!) };
      },
      method: 'POST',
      path: PATHS.confirmReset,
      body: (v) => ({
        token: v.resetToken,
        password: 'Copper-Harbour-5521',
        passwordConfirm: 'Copper-Harbour-5521',
      }),
      status: 204,
      after: async (s, v) => {
        const login = await s.login(v.email!, 'Copper-Harbour-5521');
        expect(login.status).toBe(401);
        expect(login.body.mfaId).toMatch(ID_RE);
        const res = await s.post(PATHS.authWithTotp, {
          mfaId: login.body.mfaId,
          code: totpCode(v.secret!, 1),
        });
        expectAuthResponse(res, v.email!);
      },
    },
    {
      name: 'export: no TOTP seed and no recovery code in it',
      before: member,
      method: 'GET',
      path: PATHS.exportData,
      headers: (v) => ({ Authorization: v.token! }),
      status: 200,
      notContains: (v) => [v.secret!, v.recovery!, v.recovery!.replaceAll('-', '')],
    },
  ];
  scenarios(() => t, rows);

  it('through the SDK: authWithPassword throws with response.mfaId; auth-with-totp signs in', async () => {
    const m = await twoStepMember(t);
    const pb = new PocketBase(t.url);
    pb.autoCancellation(false);
    const err = await pb
      .collection('users')
      .authWithPassword(m.email, m.password)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientResponseError);
    const first = err as ClientResponseError;
    expect(first.status).toBe(401);
    expect(first.message).toBe(MSG.secondStep);
    const mfaId = first.response.mfaId as string;
    expect(mfaId).toMatch(ID_RE);
    expect(pb.authStore.isValid).toBe(false);

    const wrong = await pb
      .send('/api/gatehouse/auth-with-totp', { method: 'POST', body: { mfaId, code: '000000' } })
      .catch((err: ClientResponseError) => err);
    expect(wrong).toBeInstanceOf(ClientResponseError);
    expect((wrong as ClientResponseError).response.data.code.code).toBe('validation_invalid_code');

    const auth = await pb.send<{ token: string; record: { id: string; email: string } }>(
      '/api/gatehouse/auth-with-totp',
      { method: 'POST', body: { mfaId, code: totpCode(m.secret, 1) } },
    );
    pb.authStore.save(auth.token, auth.record as never);
    expect(pb.authStore.isValid).toBe(true);
    expect(pb.authStore.record?.email).toBe(m.email);
    const refreshed = await pb.collection('users').authRefresh();
    expect(refreshed.record.id).toBe(m.id);
    const status = await pb.send('/api/gatehouse/totp', {});
    expect(status).toEqual({ enabled: true, recoveryCodesLeft: 10 });
  });

  it('recovery codes are stored keyed with the server secret: a copy of the database cannot check a guess', async () => {
    const m = await twoStepMember(t);
    const rows = await storedHashes(t, m.id);
    expect(rows).toHaveLength(10);
    const unkeyed = m.recoveryCodes.map((c) => unkeyedHash(m.id, c));
    for (const row of rows) {
      expect(unkeyed).not.toContain(row.code_hash);
      for (const h of unkeyed) expect(row.code_hash).not.toContain(h);
    }
    // The same database under another TOKEN_SECRET: the member's password still works, but no
    // recovery code can be told from a wrong one.
    const copy = await startTestServer({
      db,
      shareDatabaseOf: t,
      env: { TOKEN_SECRET: testTokenSecret() },
    });
    try {
      const res = await copy.post(PATHS.authWithTotp, {
        mfaId: await mfaIdFor(copy, m),
        code: m.recoveryCodes[0],
      });
      expect(res.body).toEqual(invalidCode);
    } finally {
      await copy.close();
    }
    // With the server's own secret the code works (once).
    const ok = await t.post(PATHS.authWithTotp, {
      mfaId: await mfaIdFor(t, m),
      code: m.recoveryCodes[0],
    });
    expect(ok.status, ok.text).toBe(200);
    expect((await t.get(PATHS.totp, m.token)).body.recoveryCodesLeft).toBe(9);
  });

  it('recovery codes stored before they were keyed still work once; using one keys them all', async () => {
    const m = await twoStepMember(t);
    // The member's codes as an earlier version stored them.
    await withDatabase(t, async (d) => {
      await d.deleteFrom('recovery_codes').where('user_id', '=', m.id).execute();
      await d
        .insertInto('recovery_codes')
        .values(
          m.recoveryCodes.map((code, i) => ({
            id: `legacyrecovery${i}`,
            user_id: m.id,
            code_hash: unkeyedHash(m.id, code),
            used_at: null,
            created: '2026-01-01 00:00:00.000Z',
          })),
        )
        .execute();
    });
    const signIn = async (code: string) =>
      t.post(PATHS.authWithTotp, { mfaId: await mfaIdFor(t, m), code });
    const first = await signIn(m.recoveryCodes[0]!.toUpperCase());
    expect(first.status, first.text).toBe(200);
    // No code is left in the old form, used or not.
    const unkeyed = m.recoveryCodes.map((c) => unkeyedHash(m.id, c));
    const rows = await storedHashes(t, m.id);
    expect(rows).toHaveLength(10);
    expect(rows.filter((r) => r.used_at !== null)).toHaveLength(1);
    for (const row of rows) expect(unkeyed).not.toContain(row.code_hash);
    // The used one is spent; the others still work.
    expect((await signIn(m.recoveryCodes[0]!)).body).toEqual(invalidCode);
    expect((await signIn(m.recoveryCodes[1]!)).status).toBe(200);
    expect((await t.get(PATHS.totp, m.token)).body.recoveryCodesLeft).toBe(8);
  });
});
