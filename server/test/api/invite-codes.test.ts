import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATE_RE, MSG, PATHS } from '../support/contract.js';
import type { Json } from '../support/http.js';
import {
  APP_URL,
  DATABASES,
  inviteCodeFrom,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';
import { scenarios, type Scenario } from '../support/table.js';

const PER_USER = 3;

function expectCodeList(codes: Json, length?: number): void {
  expect(Array.isArray(codes)).toBe(true);
  if (length !== undefined) expect(codes).toHaveLength(length);
  for (const c of codes) {
    expect(Object.keys(c).sort()).toEqual(['code', 'created', 'id']);
    expect(c.created).toMatch(DATE_RE);
    // Matching ignores case, so the alphabet has at most 36 symbols: 96 bits need ≥ 19 of them.
    expect(c.code.replace(/[\s-]/g, '').length).toBeGreaterThanOrEqual(19);
  }
  const created = (codes as { created: string }[]).map((c) => c.created);
  expect(created, 'newest first').toEqual([...created].sort().reverse());
}

describe.each(DATABASES)('invite codes on %s (INVITES_PER_USER=%s)', (db) => {
  let t: TestServer;
  let initial: User;
  let alice: User;
  let unverified: User;
  beforeAll(async () => {
    t = await startTestServer({ db, env: { INVITES_PER_USER: String(PER_USER) } });
    initial = await t.initialUser();
    alice = await t.verifiedUser();
    unverified = await t.unverifiedUser();
    unverified.token = await t.tokenFor(unverified);
  });
  afterAll(() => t?.close());

  it('the bootstrap link is APP_URL/signup?code=CODE and made the initial user', async () => {
    expect(t.bootstrapLink).toMatch(
      new RegExp(`^${APP_URL.replace(/\./g, '\\.')}/signup\\?code=\\S+$`),
    );
    expect(initial.record.isInitialUser).toBe(true);
    expect(alice.record.isInitialUser).toBe(false);
    // The bootstrap code is single-use.
    const again = await t.signUp(inviteCodeFrom(t.bootstrapLink!), uniqueEmail(), strongPassword());
    expect(again.status).toBe(400);
    expect(again.body.data.inviteCode.code).toBe('validation_invalid_invite_code');
  });

  const rows: Scenario[] = [
    {
      name: 'list as a guest: 401',
      method: 'GET',
      path: PATHS.codes,
      status: 401,
      error: { message: MSG.needsAuth },
    },
    {
      name: 'list as an unverified user: 403',
      method: 'GET',
      path: PATHS.codes,
      headers: () => ({ Authorization: unverified.token }),
      status: 403,
      error: { message: MSG[403] },
    },
    {
      name: `list as a new verified user: exactly INVITES_PER_USER (${PER_USER}) codes`,
      method: 'GET',
      path: PATHS.codes,
      headers: () => ({ Authorization: alice.token }),
      status: 200,
      after: async (_s, _v, res) => {
        expect(Object.keys(res.body)).toEqual(['codes']);
        expectCodeList(res.body.codes, PER_USER);
        expect(new Set(res.body.codes.map((c: Json) => c.code)).size).toBe(PER_USER);
      },
    },
    {
      name: "a used code leaves the owner's list; the others stay",
      before: async (s) => {
        const u = await s.verifiedUser();
        const codes = (await s.get(PATHS.codes, u.token)).body.codes as { code: string }[];
        const res = await s.signUp(codes[1]!.code, uniqueEmail('invitee'), strongPassword());
        expect(res.status).toBe(200);
        return { token: u.token, used: codes[1]!.code };
      },
      method: 'GET',
      path: PATHS.codes,
      headers: (v) => ({ Authorization: v.token! }),
      status: 200,
      after: async (_s, v, res) => {
        expectCodeList(res.body.codes, PER_USER - 1);
        expect(res.body.codes.map((c: Json) => c.code)).not.toContain(v.used);
      },
    },
    {
      name: 'generate as a guest: 401',
      method: 'POST',
      path: PATHS.generate,
      body: {},
      status: 401,
      error: { message: MSG.needsAuth },
    },
    {
      name: 'generate as a verified user who is not the initial user: 403 with its message',
      method: 'POST',
      path: PATHS.generate,
      headers: () => ({ Authorization: alice.token }),
      body: {},
      status: 403,
      json: { data: {}, message: MSG.onlyInitial, status: 403 },
      after: async (s) => {
        expect((await s.get(PATHS.codes, alice.token)).body.codes).toHaveLength(PER_USER);
      },
    },
    {
      name: 'generate as an unverified user: 403',
      method: 'POST',
      path: PATHS.generate,
      headers: () => ({ Authorization: unverified.token }),
      body: {},
      status: 403,
    },
    {
      name: 'generate as the initial user: 200, 5 new codes, listed first and usable',
      before: async (s) => ({
        count: String((await s.get(PATHS.codes, initial.token)).body.codes.length),
      }),
      method: 'POST',
      path: PATHS.generate,
      headers: () => ({ Authorization: initial.token }),
      status: 200,
      after: async (s, v, res) => {
        expect(Object.keys(res.body).sort()).toEqual(['codes', 'generated']);
        expect(res.body.generated).toBe(5);
        expectCodeList(res.body.codes, 5);
        const list = (await s.get(PATHS.codes, initial.token)).body.codes;
        expectCodeList(list, Number(v.count) + 5);
        const newest = list
          .slice(0, 5)
          .map((c: Json) => c.code)
          .sort();
        expect(newest).toEqual(res.body.codes.map((c: Json) => c.code).sort());
        const su = await s.signUp(res.body.codes[0].code, uniqueEmail(), strongPassword());
        expect(su.status, su.text).toBe(200);
      },
    },
    {
      name: 'the invite list works with a Bearer prefix',
      method: 'GET',
      path: PATHS.codes,
      headers: () => ({ Authorization: `Bearer ${alice.token}` }),
      status: 200,
    },
  ];
  scenarios(() => t, rows);

  it('codes are distinct across users and across generations', async () => {
    const a = (await t.get(PATHS.codes, alice.token)).body.codes.map((c: Json) => c.code);
    const i = (await t.get(PATHS.codes, initial.token)).body.codes.map((c: Json) => c.code);
    const all = [...a, ...i];
    expect(new Set(all).size).toBe(all.length);
  });
});
