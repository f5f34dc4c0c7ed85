import { afterAll, beforeAll, describe, expect } from 'vitest';
import { expectRecord, expectToken } from '../support/checks.js';
import { MSG, PATHS, subjects } from '../support/contract.js';
import { jwtPayload, type Json } from '../support/http.js';
import { tokenFromMail } from '../support/mail.js';
import {
  APP_URL,
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
} from '../support/server.js';
import { scenarios, type Scenario, type Vars } from '../support/table.js';

const S = subjects();
const NEW_PASSWORD = 'Amber-Skylight-4410';

/** A verified member signed in on two devices (tokens a and b). */
async function member(s: TestServer): Promise<Vars> {
  const u = await s.verifiedUser();
  const b = await s.login(u.email, u.password);
  return { email: u.email, password: u.password, id: u.id, a: u.token, b: b.body.token };
}

const change = (v: Vars, extra: Record<string, unknown> = {}) => ({
  oldPassword: v.password,
  password: NEW_PASSWORD,
  passwordConfirm: NEW_PASSWORD,
  ...extra,
});

/** Asks for an email change and returns the token of the link mailed to the new address. */
async function emailChangeToken(s: TestServer, v: Vars, newEmail: string): Promise<string> {
  const res = await s.post(PATHS.requestEmailChange, { newEmail }, v.a);
  expect(res.status, res.text).toBe(204);
  const mail = await s.mail.waitForMailTo(newEmail, S.emailChange);
  return tokenFromMail(mail, `${APP_URL}/confirm-email-change?token=`);
}

describe.each(DATABASES)('password change, email change, export, activity on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
  });
  afterAll(() => t?.close());

  const rows: Scenario[] = [
    // ---- change password (PocketBase's record update)
    {
      name: 'change password: 200 record; a fresh token for this session in X-Gatehouse-Token',
      before: member,
      method: 'PATCH',
      path: (v) => PATHS.record(v.id!),
      headers: (v) => ({ Authorization: v.a! }),
      body: (v) => change(v),
      status: 200,
      after: async (s, v, res) => {
        expectRecord(res.body, { id: v.id, email: v.email, verified: true });
        const fresh = res.headers['x-gatehouse-token'] as string;
        expectToken(fresh, 'auth', { id: v.id!, collectionId: res.body.collectionId });
        expect(jwtPayload(fresh).sid).toBe(jwtPayload(v.a!).sid);
        // This device goes on with the fresh token; the old token and the other device are out.
        expect((await s.post(PATHS.refresh, {}, fresh)).status).toBe(200);
        expect((await s.post(PATHS.refresh, {}, v.a)).status).toBe(401);
        expect((await s.post(PATHS.refresh, {}, v.b)).status).toBe(401);
        // The old password fails, the new one works.
        expect((await s.login(v.email!, v.password!)).status).toBe(400);
        expect((await s.login(v.email!, NEW_PASSWORD)).status).toBe(200);
        const notice = await s.mail.waitForMailTo(v.email!, S.passwordChanged);
        expect(notice.text).toContain(`${APP_URL}/forgot-password`);
        expect(notice.text).toContain('127.0.0.1');
      },
    },
    {
      name: 'change password: wrong old password → validation_invalid_old_password, nothing changes, no mail',
      before: member,
      method: 'PATCH',
      path: (v) => PATHS.record(v.id!),
      headers: (v) => ({ Authorization: v.a! }),
      body: (v) => change(v, { oldPassword: 'Not-The-Password-1' }),
      status: 400,
      error: { message: MSG.update, fields: { oldPassword: 'validation_invalid_old_password' } },
      after: async (s, v) => {
        expect((await s.login(v.email!, v.password!)).status).toBe(200);
        expect((await s.post(PATHS.refresh, {}, v.b)).status).toBe(200);
        await s.mail.expectNone((m) => m.subject === S.passwordChanged && m.to.includes(v.email!));
      },
    },
    {
      name: 'change password: missing old password, short password, mismatch → all reported',
      before: member,
      method: 'PATCH',
      path: (v) => PATHS.record(v.id!),
      headers: (v) => ({ Authorization: v.a! }),
      body: { password: 'short', passwordConfirm: 'other' },
      status: 400,
      error: {
        message: MSG.update,
        fields: {
          oldPassword: 'validation_invalid_old_password',
          password: 'validation_min_text_constraint',
          passwordConfirm: 'validation_values_mismatch',
        },
      },
    },
    {
      name: 'change password: a common password → validation_password_too_common',
      before: member,
      method: 'PATCH',
      path: (v) => PATHS.record(v.id!),
      headers: (v) => ({ Authorization: v.a! }),
      body: (v) => ({
        oldPassword: v.password,
        password: 'password123',
        passwordConfirm: 'password123',
      }),
      status: 400,
      error: { message: MSG.update, fields: { password: 'validation_password_too_common' } },
    },
    {
      name: 'record update: email, verified, isInitialUser and inviteCode are never applied',
      before: member,
      method: 'PATCH',
      path: (v) => PATHS.record(v.id!),
      headers: (v) => ({ Authorization: v.a! }),
      body: {
        email: 'stolen@example.com',
        verified: false,
        isInitialUser: true,
        inviteCode: 'XXXX',
        emailVisibility: true,
      },
      status: 200,
      after: async (s, v, res) => {
        expect(res.body).toMatchObject({ email: v.email, verified: true, isInitialUser: false });
        expect(res.body.emailVisibility).toBe(true);
        expect(res.headers['x-gatehouse-token']).toBeUndefined();
        expect((await s.post(PATHS.refresh, {}, v.b)).status).toBe(200);
      },
    },
    {
      name: "record update: another member's record is a 404",
      before: async (s) => ({ ...(await member(s)), other: (await member(s)).id! }),
      method: 'PATCH',
      path: (v) => PATHS.record(v.other!),
      headers: (v) => ({ Authorization: v.a! }),
      body: (v) => change(v),
      status: 404,
      error: { message: MSG[404] },
    },
    {
      name: 'record update: a guest gets 404',
      before: member,
      method: 'PATCH',
      path: (v) => PATHS.record(v.id!),
      body: (v) => change(v),
      status: 404,
      error: { message: MSG[404] },
      after: async (s, v) => {
        expect((await s.login(v.email!, v.password!)).status).toBe(200);
      },
    },
    {
      name: 'record update: a field of the wrong JSON type is a loading error',
      before: member,
      method: 'PATCH',
      path: (v) => PATHS.record(v.id!),
      headers: (v) => ({ Authorization: v.a! }),
      body: { oldPassword: 12345678, password: NEW_PASSWORD, passwordConfirm: NEW_PASSWORD },
      status: 400,
      error: { message: MSG.load },
    },
    // ---- change email
    {
      name: 'request email change: missing → validation_required',
      before: member,
      method: 'POST',
      path: PATHS.requestEmailChange,
      headers: (v) => ({ Authorization: v.a! }),
      body: {},
      status: 400,
      error: { message: MSG.validate, fields: { newEmail: 'validation_required' } },
    },
    {
      name: 'request email change: malformed → validation_is_email',
      before: member,
      method: 'POST',
      path: PATHS.requestEmailChange,
      headers: (v) => ({ Authorization: v.a! }),
      body: { newEmail: 'nope' },
      status: 400,
      error: { message: MSG.validate, fields: { newEmail: 'validation_is_email' } },
    },
    {
      name: 'request email change: the current address (any case) → 400 newEmail',
      before: member,
      method: 'POST',
      path: PATHS.requestEmailChange,
      headers: (v) => ({ Authorization: v.a! }),
      body: (v) => ({ newEmail: v.email!.toUpperCase() }),
      status: 400,
      error: { message: MSG.validate, fields: { newEmail: 'validation_not_in_invalid' } },
    },
    {
      name: 'request email change: a guest gets 401',
      method: 'POST',
      path: PATHS.requestEmailChange,
      body: { newEmail: 'someone@example.com' },
      status: 401,
      error: { message: MSG.needsAuth },
    },
    {
      name: 'request email change: an unverified member gets 403',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { token: (await s.login(u.email, u.password)).body.token };
      },
      method: 'POST',
      path: PATHS.requestEmailChange,
      headers: (v) => ({ Authorization: v.token! }),
      body: { newEmail: 'fresh-unverified@example.com' },
      status: 403,
      error: { message: MSG[403] },
      after: (s) => s.mail.expectNoMailTo('fresh-unverified@example.com'),
    },
    {
      name: 'request email change: a taken address → 204 too; it gets a no-link notice, never a link',
      before: async (s) => ({ ...(await member(s)), taken: (await member(s)).email! }),
      method: 'POST',
      path: PATHS.requestEmailChange,
      headers: (v) => ({ Authorization: v.a! }),
      body: (v) => ({ newEmail: v.taken }),
      status: 204,
      empty: true,
      after: async (s, v) => {
        const mail = await s.mail.waitForMailTo(v.taken!, S.emailTaken);
        expect(mail.text).not.toContain('confirm-email-change');
        await s.mail.expectNone((m) => m.subject === S.emailChange && m.to.includes(v.taken!));
      },
    },
    {
      name: 'confirm email change: valid → 204; new email, verified, every session ended, old address told',
      before: async (s) => {
        const v = await member(s);
        const newEmail = uniqueEmail('moved');
        return { ...v, newEmail, token: await emailChangeToken(s, v, newEmail) };
      },
      method: 'POST',
      path: PATHS.confirmEmailChange,
      body: (v) => ({ token: v.token, password: v.password }),
      status: 204,
      empty: true,
      after: async (s, v) => {
        expect((await s.post(PATHS.refresh, {}, v.a)).status).toBe(401);
        expect((await s.post(PATHS.refresh, {}, v.b)).status).toBe(401);
        expect((await s.login(v.email!, v.password!)).status).toBe(400);
        const login = await s.login(v.newEmail!, v.password!);
        expect(login.status).toBe(200);
        expect(login.body.record).toMatchObject({ email: v.newEmail, verified: true });
        const notice = await s.mail.waitForMailTo(v.email!, S.emailChanged);
        expect(notice.text).toContain(v.newEmail!);
        // The link serves once: the tokenKey rotated.
        const again = await s.post(PATHS.confirmEmailChange, {
          token: v.token,
          password: v.password,
        });
        expect(again.status).toBe(400);
      },
    },
    {
      name: 'confirm email change: wrong password → validation_invalid_password, nothing changes',
      before: async (s) => {
        const v = await member(s);
        const newEmail = uniqueEmail('moved');
        return { ...v, newEmail, token: await emailChangeToken(s, v, newEmail) };
      },
      method: 'POST',
      path: PATHS.confirmEmailChange,
      body: (v) => ({ token: v.token, password: 'Wrong-Password-99' }),
      status: 400,
      error: { message: MSG.validate, fields: { password: 'validation_invalid_password' } },
      after: async (s, v) => {
        expect((await s.login(v.email!, v.password!)).status).toBe(200);
        expect((await s.post(PATHS.refresh, {}, v.b)).status).toBe(200);
        // The guess is in the member's security log.
        const log = await s.get(PATHS.securityEvents, v.b);
        const failures = (log.body.items as Json[]).filter(
          (e) => e.type === 'email_changed' && e.outcome === 'failure',
        );
        expect(failures).toHaveLength(1);
        expect(failures[0]!.detail).toEqual({ reason: 'wrong_password' });
        expect(failures[0]!.ip).toBe('127.0.0.1');
      },
    },
    {
      name: 'confirm email change: the address was taken meanwhile → validation_invalid_token, nothing changes',
      before: async (s) => {
        const v = await member(s);
        const newEmail = uniqueEmail('race');
        const token = await emailChangeToken(s, v, newEmail);
        // Someone signs up with that address before the link is used.
        const code = await s.newCode();
        expect((await s.signUp(code, newEmail, strongPassword())).status).toBe(200);
        return { ...v, newEmail, token };
      },
      method: 'POST',
      path: PATHS.confirmEmailChange,
      body: (v) => ({ token: v.token, password: v.password }),
      status: 400,
      error: { message: MSG.validate, fields: { token: 'validation_invalid_token' } },
      after: async (s, v) => {
        expect((await s.login(v.email!, v.password!)).status).toBe(200);
      },
    },
    {
      name: 'confirm email change: other token types and garbage → validation_invalid_token',
      before: async (s) => {
        const v = await member(s);
        return { ...v, reset: await s.resetToken(v.email!) };
      },
      method: 'POST',
      path: PATHS.confirmEmailChange,
      body: (v) => ({ token: v.reset, password: v.password }),
      status: 400,
      error: {
        message: MSG.validate,
        fields: { token: 'validation_invalid_token', password: 'validation_invalid_password' },
      },
    },
    {
      name: 'confirm email change: empty body → both fields required',
      method: 'POST',
      path: PATHS.confirmEmailChange,
      body: {},
      status: 400,
      error: {
        message: MSG.validate,
        fields: { token: 'validation_required', password: 'validation_required' },
      },
    },
    // ---- your data and activity
    {
      name: 'export: a JSON attachment with record, codes, sessions and events, and no secret',
      before: member,
      method: 'GET',
      path: PATHS.exportData,
      headers: (v) => ({ Authorization: v.a! }),
      status: 200,
      after: async (_s, v, res) => {
        expect(res.headers['content-disposition']).toBe(
          `attachment; filename="gatehouse-export-${v.id}.json"`,
        );
        expect(res.body.record).toMatchObject({ id: v.id, email: v.email });
        expect(res.body.inviteCodes).toHaveLength(5);
        expect(res.body.sessions).toHaveLength(2);
        expect(res.body.securityEvents.map((e: { type: string }) => e.type)).toEqual(
          expect.arrayContaining(['sign_up', 'email_verified', 'sign_in']),
        );
        for (const secret of ['password_hash', 'token_key', 'tokenKey', 'passwordHash', v.a!]) {
          expect(res.text).not.toContain(secret);
        }
      },
    },
    {
      name: 'export: a guest gets 401',
      method: 'GET',
      path: PATHS.exportData,
      status: 401,
      error: { message: MSG.needsAuth },
    },
    {
      name: "activity: the member's own events, newest first, in PocketBase's list shape",
      before: async (s) => {
        const v = await member(s);
        await s.login(v.email!, 'Wrong-Password-11');
        return v;
      },
      method: 'GET',
      path: `${PATHS.securityEvents}?perPage=3`,
      headers: (v) => ({ Authorization: v.a! }),
      status: 200,
      after: async (_s, v, res) => {
        expect(res.body).toMatchObject({ page: 1, perPage: 3 });
        expect(res.body.totalItems).toBeGreaterThanOrEqual(5);
        expect(res.body.items).toHaveLength(3);
        const [latest] = res.body.items;
        expect(latest).toMatchObject({
          type: 'sign_in',
          outcome: 'failure',
          ip: '127.0.0.1',
          detail: { method: 'password', reason: 'wrong_password' },
        });
        expect(JSON.stringify(res.body)).not.toContain(v.password!);
      },
    },
    {
      name: 'activity: a guest gets 401',
      method: 'GET',
      path: PATHS.securityEvents,
      status: 401,
      error: { message: MSG.needsAuth },
    },
  ];

  scenarios(() => t, rows);
});
