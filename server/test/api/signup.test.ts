import { dictionary } from '@zxcvbn-ts/language-common';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { expectRecord } from '../support/checks.js';
import { MSG, PATHS } from '../support/contract.js';
import {
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';
import { scenarios, type Scenario, type Vars } from '../support/table.js';

const failedCreate = (fields: Record<string, string>) => ({ message: MSG.create, fields });

/** A fresh unused code plus a fresh email and password. */
async function fresh(t: TestServer): Promise<Vars> {
  return { code: await t.newCode(), email: uniqueEmail('signup'), password: strongPassword() };
}

/** The code can still create an account (it was not consumed). */
async function expectCodeUsable(t: TestServer, code: string): Promise<void> {
  const res = await t.signUp(code, uniqueEmail('probe'), strongPassword());
  expect(res.status, `code ${code} should still be usable: ${res.text}`).toBe(200);
}

async function expectCodeConsumed(t: TestServer, code: string): Promise<void> {
  const res = await t.signUp(code, uniqueEmail('probe'), strongPassword());
  expect(res.status, res.text).toBe(400);
  expect(res.body.data).toEqual({
    inviteCode: {
      code: 'validation_invalid_invite_code',
      message: 'Invalid or already used invite code.',
    },
  });
}

describe.each(DATABASES)('sign-up (records create) on %s', (db) => {
  let t: TestServer;
  let existing: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    existing = await t.unverifiedUser();
  });
  afterAll(() => t?.close());

  const rows: Scenario[] = [
    // ---- stage 1: passwords
    {
      name: 'stage 1: empty body → only password and passwordConfirm required',
      method: 'POST',
      path: PATHS.records,
      body: {},
      status: 400,
      error: failedCreate({
        password: 'validation_required',
        passwordConfirm: 'validation_required',
      }),
    },
    {
      name: 'stage 1: passwordConfirm missing → only passwordConfirm required (email/code not checked yet)',
      method: 'POST',
      path: PATHS.records,
      body: { password: 'Tidal-Lantern-9' },
      status: 400,
      error: failedCreate({ passwordConfirm: 'validation_required' }),
    },
    {
      name: 'stage 1: passwordConfirm differs → validation_values_mismatch only',
      method: 'POST',
      path: PATHS.records,
      body: {
        email: 'not-an-email',
        password: 'Tidal-Lantern-9',
        passwordConfirm: 'Tidal-Lantern-8',
      },
      status: 400,
      error: failedCreate({ passwordConfirm: 'validation_values_mismatch' }),
    },
    {
      name: 'stage 1: verified:true from a client is refused, the valid code is not consumed',
      before: fresh,
      method: 'POST',
      path: PATHS.records,
      body: (v) => ({
        email: v.email,
        password: v.password,
        passwordConfirm: v.password,
        inviteCode: v.code,
        verified: true,
      }),
      status: 400,
      error: failedCreate({ verified: 'validation_values_mismatch' }),
      after: async (s, v) => {
        await expectCodeUsable(s, v.code!);
        // The refused sign-up made no account.
        expect((await s.login(v.email!, v.password!)).status).toBe(400);
      },
    },
    // ---- stage 2: fields
    {
      name: 'stage 2: email, inviteCode missing and short password reported together',
      method: 'POST',
      path: PATHS.records,
      body: { password: 'short', passwordConfirm: 'short' },
      status: 400,
      error: failedCreate({
        email: 'validation_required',
        password: 'validation_min_text_constraint',
        inviteCode: 'validation_required',
      }),
    },
    {
      name: 'stage 2: malformed email → validation_is_email; a bad code is not yet looked at',
      method: 'POST',
      path: PATHS.records,
      body: {
        email: 'not-an-email',
        password: 'Tidal-Lantern-9',
        passwordConfirm: 'Tidal-Lantern-9',
        inviteCode: 'NOPE-NOPE',
      },
      status: 400,
      error: failedCreate({ email: 'validation_is_email' }),
    },
    {
      name: 'stage 2: 257-character password → validation_max_text_constraint',
      method: 'POST',
      path: PATHS.records,
      body: {
        email: 'x@example.com',
        password: 'a'.repeat(257),
        passwordConfirm: 'a'.repeat(257),
        inviteCode: 'X',
      },
      status: 400,
      error: failedCreate({ password: 'validation_max_text_constraint' }),
    },
    ...['password', '12345678', 'iloveyou', 'qwertyuiop'].map((pw): Scenario => ({
      name: `stage 2: common password "${pw}" → validation_password_too_common`,
      before: fresh,
      method: 'POST',
      path: PATHS.records,
      body: (v) => ({ email: v.email, password: pw, passwordConfirm: pw, inviteCode: v.code }),
      status: 400,
      error: failedCreate({ password: 'validation_password_too_common' }),
      after: (s, v) => expectCodeUsable(s, v.code!),
    })),
    {
      name: 'stage 2: the list covers the 10,000 most common (ranks 5,000-10,000 of zxcvbn), any case',
      method: 'POST',
      path: PATHS.records,
      body: { password: 'Tidal-Lantern-9', passwordConfirm: 'Tidal-Lantern-9' },
      status: 400,
      after: async (s) => {
        const ranked = (dictionary['passwords-common'] as string[]).slice(5000, 10_000);
        const picks = ranked
          .filter((p) => p.length >= 8 && p.length <= 256)
          .filter((_, i) => i % 97 === 0);
        expect(picks.length).toBeGreaterThanOrEqual(5);
        for (const [i, pw] of picks.entries()) {
          const candidate = i % 2 ? pw.toUpperCase() : pw;
          const res = await s.post(PATHS.records, {
            email: 'someone@example.com',
            password: candidate,
            passwordConfirm: candidate,
            inviteCode: 'ANY',
          });
          expect(res.body?.data?.password?.code, `"${candidate}" should be refused as common`).toBe(
            'validation_password_too_common',
          );
        }
      },
    },
    {
      name: 'stage 2: an 8-character uncommon password and a 256-character one are fine',
      before: async (s) => ({ ...(await fresh(s)), code2: await s.newCode() }),
      method: 'POST',
      path: PATHS.records,
      body: (v) => ({
        email: v.email,
        password: 'kx7Qm2vZ',
        passwordConfirm: 'kx7Qm2vZ',
        inviteCode: v.code,
      }),
      status: 200,
      after: async (s, v) => {
        const long = 'Zq9'.repeat(85) + 'w';
        expect(long).toHaveLength(256);
        const res = await s.signUp(v.code2!, uniqueEmail('long'), long);
        expect(res.status, res.text).toBe(200);
      },
    },
    // ---- stage 3: the invite code
    {
      name: 'stage 3: unknown code → validation_invalid_invite_code',
      method: 'POST',
      path: PATHS.records,
      body: {
        email: 'someone-new@example.com',
        password: 'Tidal-Lantern-9',
        passwordConfirm: 'Tidal-Lantern-9',
        inviteCode: 'ZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZ',
      },
      status: 400,
      error: failedCreate({ inviteCode: 'validation_invalid_invite_code' }),
    },
    {
      name: 'stage 3 before 4: an existing email with a bad code reveals nothing about the email',
      method: 'POST',
      path: PATHS.records,
      body: () => ({
        email: existing.email,
        password: 'Tidal-Lantern-9',
        passwordConfirm: 'Tidal-Lantern-9',
        inviteCode: 'ZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZ',
      }),
      status: 400,
      error: failedCreate({ inviteCode: 'validation_invalid_invite_code' }),
    },
    {
      name: 'stage 3: an already used code → validation_invalid_invite_code',
      before: async (s) => {
        const v = await fresh(s);
        const first = await s.signUp(v.code!, uniqueEmail('first'), strongPassword());
        expect(first.status).toBe(200);
        return v;
      },
      method: 'POST',
      path: PATHS.records,
      body: (v) => ({
        email: v.email,
        password: v.password,
        passwordConfirm: v.password,
        inviteCode: v.code,
      }),
      status: 400,
      error: failedCreate({ inviteCode: 'validation_invalid_invite_code' }),
    },
    // ---- stage 4: unique email
    {
      name: 'stage 4: existing email with a valid code → validation_not_unique; the code survives',
      before: fresh,
      method: 'POST',
      path: PATHS.records,
      body: (v) => ({
        email: existing.email,
        password: v.password,
        passwordConfirm: v.password,
        inviteCode: v.code,
      }),
      status: 400,
      error: failedCreate({ email: 'validation_not_unique' }),
      after: (s, v) => expectCodeUsable(s, v.code!),
    },
    {
      name: 'stage 4: the existing email in upper case with spaces → validation_not_unique',
      before: fresh,
      method: 'POST',
      path: PATHS.records,
      body: (v) => ({
        email: `  ${existing.email.toUpperCase()}  `,
        password: v.password,
        passwordConfirm: v.password,
        inviteCode: v.code,
      }),
      status: 400,
      error: failedCreate({ email: 'validation_not_unique' }),
    },
    // ---- success
    {
      name: 'success: 200 record (verified:false, no email), code consumed, no mail, nobody signed in',
      before: fresh,
      method: 'POST',
      path: PATHS.records,
      body: (v) => ({
        email: v.email,
        password: v.password,
        passwordConfirm: v.password,
        inviteCode: v.code,
      }),
      status: 200,
      notContains: (v) => ['password', 'tokenKey', '"token"', v.password!],
      after: async (s, v, res) => {
        expectRecord(
          res.body,
          { verified: false, emailVisibility: false, isInitialUser: false },
          false,
        );
        await expectCodeConsumed(s, v.code!);
        const login = await s.login(v.email!, v.password!);
        expect(login.status).toBe(200);
        expect(login.body.record.id).toBe(res.body.id);
        await s.mail.expectNoMailTo(v.email!, 400);
      },
    },
    {
      name: 'success with emailVisibility:true: the email is in the response, trimmed and lower-cased',
      before: fresh,
      method: 'POST',
      path: PATHS.records,
      body: (v) => ({
        email: `  ${v.email!.toUpperCase()} `,
        password: v.password,
        passwordConfirm: v.password,
        inviteCode: v.code,
        emailVisibility: true,
      }),
      status: 200,
      after: async (s, v, res) => {
        expectRecord(res.body, { email: v.email, emailVisibility: true, verified: false });
        expect((await s.login(v.email!, v.password!)).status).toBe(200);
      },
    },
    {
      name: 'success ignores what a client may not set: isInitialUser, id, tokenKey, created',
      before: fresh,
      method: 'POST',
      path: PATHS.records,
      headers: { Authorization: 'Bearer not-a-token' },
      body: (v) => ({
        email: v.email,
        password: v.password,
        passwordConfirm: v.password,
        inviteCode: v.code,
        verified: false,
        isInitialUser: true,
        id: 'aaaaaaaaaaaaaaa',
        tokenKey: 'chosen-by-client',
        created: '2000-01-01 00:00:00.000Z',
      }),
      status: 200,
      after: async (s, v, res) => {
        expect(res.body.isInitialUser).toBe(false);
        expect(res.body.id).not.toBe('aaaaaaaaaaaaaaa');
        expect(res.body.created).not.toBe('2000-01-01 00:00:00.000Z');
        const token = await s.tokenFor({ email: v.email!, password: v.password! });
        const gen = await s.post(PATHS.generate, {}, token);
        expect(gen.status).toBe(403);
      },
    },
    {
      name: 'code matching ignores case, spaces and dashes',
      before: fresh,
      method: 'POST',
      path: PATHS.records,
      body: (v) => {
        const bare = v.code!.replace(/[\s-]/g, '');
        const mangled = ` ${bare
          .toLowerCase()
          .split('')
          .map((c, i) => (i % 4 === 3 ? `${c}-` : i % 5 === 2 ? `${c} ` : c))
          .join('')}  `;
        return {
          email: v.email,
          password: v.password,
          passwordConfirm: v.password,
          inviteCode: mangled,
        };
      },
      status: 200,
      after: (s, v) => expectCodeConsumed(s, v.code!),
    },
    {
      name: 'a code in upper case with dashes stripped also matches',
      before: fresh,
      method: 'POST',
      path: PATHS.records,
      body: (v) => ({
        email: v.email,
        password: v.password,
        passwordConfirm: v.password,
        inviteCode: v.code!.replace(/[\s-]/g, '').toUpperCase(),
      }),
      status: 200,
    },
  ];
  scenarios(() => t, rows);
});
