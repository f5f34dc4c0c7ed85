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
import { scenarios, type Scenario } from '../support/table.js';

const notFound = { message: MSG[404] };

describe.each(DATABASES)('view, list and delete records on %s', (db) => {
  let t: TestServer;
  let alice: User;
  let bob: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    [alice, bob] = [await t.verifiedUser(), await t.verifiedUser()];
  });
  afterAll(() => t?.close());

  const rows: Scenario[] = [
    {
      name: 'list as a guest: 403 superusers only',
      method: 'GET',
      path: PATHS.records,
      status: 403,
      error: { message: MSG.superusers },
    },
    {
      name: 'list as a user: 403 superusers only',
      method: 'GET',
      path: `${PATHS.records}?page=1&perPage=30`,
      headers: () => ({ Authorization: alice.token }),
      status: 403,
      error: { message: MSG.superusers },
    },
    {
      name: 'view own record: 200 with email',
      method: 'GET',
      path: () => PATHS.record(alice.id),
      headers: () => ({ Authorization: alice.token }),
      status: 200,
      notContains: ['password', 'tokenKey'],
      after: async (_s, _v, res) => {
        expectRecord(res.body, { id: alice.id, email: alice.email, verified: true });
      },
    },
    {
      name: "view another user's record: 404",
      method: 'GET',
      path: () => PATHS.record(bob.id),
      headers: () => ({ Authorization: alice.token }),
      status: 404,
      error: notFound,
    },
    {
      name: 'view as a guest: 404',
      method: 'GET',
      path: () => PATHS.record(alice.id),
      status: 404,
      error: notFound,
    },
    {
      name: 'view an unknown id: 404',
      method: 'GET',
      path: PATHS.record('zzzzzzzzzzzzzzz'),
      headers: () => ({ Authorization: alice.token }),
      status: 404,
      error: notFound,
    },
    {
      name: 'delete as a guest: 404, the user is untouched',
      method: 'DELETE',
      path: () => PATHS.record(bob.id),
      status: 404,
      error: notFound,
      after: async (s) => {
        expect((await s.get(PATHS.record(bob.id), bob.token)).status).toBe(200);
      },
    },
    {
      name: 'delete another user: 404, the user is untouched',
      method: 'DELETE',
      path: () => PATHS.record(bob.id),
      headers: () => ({ Authorization: alice.token }),
      status: 404,
      error: notFound,
      after: async (s) => {
        expect((await s.get(PATHS.record(bob.id), bob.token)).status).toBe(200);
      },
    },
    {
      name: 'delete an unknown id: 404',
      method: 'DELETE',
      path: PATHS.record('zzzzzzzzzzzzzzz'),
      headers: () => ({ Authorization: alice.token }),
      status: 404,
      error: notFound,
    },
    {
      name: 'delete with a verification token as Authorization (a guest): 404',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { id: u.id, token: await s.verificationToken(u.email) };
      },
      method: 'DELETE',
      path: (v) => PATHS.record(v.id!),
      headers: (v) => ({ Authorization: v.token! }),
      status: 404,
      error: notFound,
    },
    {
      name: 'delete own: 204; token dead, login fails, codes gone, invitees unaffected',
      before: async (s) => {
        const u = await s.verifiedUser();
        const codes = (await s.get(PATHS.codes, u.token)).body.codes as { code: string }[];
        expect(codes.length).toBeGreaterThanOrEqual(2);
        // Someone signs up with one of u's codes; another code stays unused.
        const invitee = { email: uniqueEmail('invitee'), password: strongPassword() };
        const su = await s.signUp(codes[0]!.code, invitee.email, invitee.password);
        expect(su.status, su.text).toBe(200);
        return {
          id: u.id,
          email: u.email,
          password: u.password,
          token: u.token,
          unused: codes[1]!.code,
          inviteeEmail: invitee.email,
          inviteePassword: invitee.password,
        };
      },
      method: 'DELETE',
      path: (v) => PATHS.record(v.id!),
      headers: (v) => ({ Authorization: v.token! }),
      status: 204,
      empty: true,
      after: async (s, v) => {
        expect((await s.post(PATHS.refresh, {}, v.token)).status).toBe(401);
        expect((await s.get(PATHS.codes, v.token)).status).toBe(401);
        expect((await s.get(PATHS.record(v.id!), v.token)).status).toBe(404);
        expect((await s.login(v.email!, v.password!)).body).toEqual({
          data: {},
          message: MSG.auth,
          status: 400,
        });
        const reuse = await s.signUp(v.unused!, uniqueEmail('late'), strongPassword());
        expect(reuse.status).toBe(400);
        expect(reuse.body.data.inviteCode.code).toBe('validation_invalid_invite_code');
        const invitee = await s.login(v.inviteeEmail!, v.inviteePassword!);
        expect(invitee.status).toBe(200);
        expect((await s.get(PATHS.record(invitee.body.record.id), invitee.body.token)).status).toBe(
          200,
        );
        // The email is free again: a new account can take it (with a fresh code).
        const again = await s.signUp(await s.newCode(), v.email!, strongPassword());
        expect(again.status, again.text).toBe(200);
      },
    },
    {
      name: 'delete own with a Bearer-prefixed token, unverified user: 204',
      before: async (s) => {
        const u = await s.unverifiedUser();
        return { id: u.id, token: await s.tokenFor(u) };
      },
      method: 'DELETE',
      path: (v) => PATHS.record(v.id!),
      headers: (v) => ({ Authorization: `Bearer ${v.token}` }),
      status: 204,
      after: async (s, v) => {
        expect((await s.post(PATHS.refresh, {}, v.token)).status).toBe(401);
      },
    },
  ];
  scenarios(() => t, rows);
});
