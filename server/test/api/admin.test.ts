import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRecord } from '../support/checks.js';
import { DATE_RE, ID_RE, MSG, PATHS, RECORD_KEYS, subjects } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import type { ApiResponse, Json } from '../support/http.js';
import { CONFIRM_IT_IS_YOU, staleSession } from '../support/reauth.js';
import {
  APP_URL,
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';
import { scenarios, type Scenario } from '../support/table.js';
import { twoStepMember } from '../support/totp.js';
import { SoftAuthenticator } from '../support/webauthn.js';

/** The operator console's API (docs/api.md, "Operator console"). */
export const ADMIN = {
  me: '/api/gatehouse/me',
  members: '/api/admin/members',
  member: (id: string) => `/api/admin/members/${encodeURIComponent(id)}`,
  disable: (id: string) => `/api/admin/members/${encodeURIComponent(id)}/disable`,
  enable: (id: string) => `/api/admin/members/${encodeURIComponent(id)}/enable`,
  operator: (id: string) => `/api/admin/members/${encodeURIComponent(id)}/operator`,
  invites: (id: string) => `/api/admin/members/${encodeURIComponent(id)}/invites`,
  resend: (id: string) => `/api/admin/members/${encodeURIComponent(id)}/resend-verification`,
  resetTwoStep: (id: string) => `/api/admin/members/${encodeURIComponent(id)}/reset-two-step`,
  code: (id: string) => `/api/admin/invite-codes/${encodeURIComponent(id)}`,
  tree: '/api/admin/invite-tree',
  outbox: '/api/admin/outbox',
  retry: (id: string) => `/api/admin/outbox/${encodeURIComponent(id)}/retry`,
  testMail: '/api/admin/test-mail',
  events: '/api/admin/security-events',
} as const;

const DISABLED = 'This account has been disabled.';
/** The notice a member gets when an operator resets their two-step sign-in. */
const RESET_SUBJECT = 'Two-step sign-in was reset on your Gatehouse account';
const MEMBER_KEYS = [...RECORD_KEYS, 'disabled', 'isOperator'].sort();
const UNKNOWN = 'nosuchmember000';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every operator endpoint, with a method and a path (for the role rules). */
const ENDPOINTS: Array<[string, string, Json?]> = [
  ['GET', ADMIN.members],
  ['GET', ADMIN.member(UNKNOWN)],
  ['POST', ADMIN.disable(UNKNOWN)],
  ['POST', ADMIN.enable(UNKNOWN)],
  ['POST', ADMIN.operator(UNKNOWN)],
  ['DELETE', ADMIN.operator(UNKNOWN)],
  ['POST', ADMIN.invites(UNKNOWN), { count: 1 }],
  ['POST', ADMIN.resend(UNKNOWN)],
  ['POST', ADMIN.resetTwoStep(UNKNOWN)],
  ['DELETE', ADMIN.member(UNKNOWN)],
  ['DELETE', ADMIN.code(UNKNOWN)],
  ['GET', ADMIN.tree],
  ['GET', ADMIN.outbox],
  ['POST', ADMIN.retry(UNKNOWN)],
  ['POST', ADMIN.testMail],
  ['GET', ADMIN.events],
];

describe.each(DATABASES)('the operator console API on %s', (db) => {
  let t: TestServer;
  let root: User;
  /** A member the initial user made an operator. */
  let op: User;
  /** A plain verified member. */
  let plain: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    root = await t.initialUser();
    op = await t.verifiedUser();
    plain = await t.verifiedUser();
    const made = await t.post(ADMIN.operator(op.id), {}, root.token);
    if (made.status !== 200) throw new Error(`make operator: ${made.text}`);
  });
  afterAll(() => t?.close());

  const as = (u: () => User) => () => ({ Authorization: u().token });
  const items = (res: ApiResponse) => res.body.items as Json[];
  /** A fresh verified member invited by `inviter` (a code of theirs), signed in. */
  const invitedBy = async (s: TestServer, inviter: User): Promise<User> => {
    const codes = await s.get(PATHS.codes, inviter.token);
    const code = codes.body.codes[0].code as string;
    const email = uniqueEmail('child');
    const password = strongPassword();
    expect((await s.signUp(code, email, password)).status).toBe(200);
    const token = await s.verificationToken(email);
    expect((await s.post(PATHS.confirmVerification, { token })).status).toBe(204);
    const login = await s.login(email, password);
    return { email, password, id: login.body.record.id, token: login.body.token, record: {} };
  };

  const roleRows: Scenario[] = ENDPOINTS.flatMap(([method, path, body]) => [
    {
      name: `${method} ${path}: a guest gets 401`,
      method,
      path,
      ...(body ? { body } : {}),
      status: 401,
      error: { message: MSG.needsAuth },
    },
    {
      name: `${method} ${path}: a member who is not an operator gets 403`,
      method,
      path,
      ...(body ? { body } : {}),
      headers: as(() => plain),
      status: 403,
      error: { message: MSG[403] },
    },
  ]);

  const rows: Scenario[] = [
    ...roleRows,
    {
      name: 'me: the initial user is an operator',
      method: 'GET',
      path: ADMIN.me,
      headers: as(() => root),
      status: 200,
      json: () => ({ id: root.id, email: root.email, isInitialUser: true, isOperator: true }),
    },
    {
      name: 'me: a member is not; a guest gets 401',
      method: 'GET',
      path: ADMIN.me,
      headers: as(() => plain),
      status: 200,
      json: () => ({ id: plain.id, email: plain.email, isInitialUser: false, isOperator: false }),
      after: async (s) => {
        const guest = await s.get(ADMIN.me);
        expect(guest.status).toBe(401);
        expect(guest.body.message).toBe(MSG.needsAuth);
      },
    },
    {
      name: 'the record JSON keeps its PocketBase shape (no role in it)',
      method: 'GET',
      path: () => PATHS.record(op.id),
      headers: as(() => op),
      status: 200,
      after: async (_s, _v, res) => expectRecord(res.body, { id: op.id }),
    },
    {
      name: 'operator: the initial user makes a member an operator and takes it back',
      before: async (s) => ({ id: (await s.verifiedUser()).id }),
      method: 'POST',
      path: (v) => ADMIN.operator(v.id!),
      headers: as(() => root),
      status: 200,
      after: async (s, v, res) => {
        expect(Object.keys(res.body).sort()).toEqual(MEMBER_KEYS);
        expect(res.body.isOperator).toBe(true);
        const back = await s.del(ADMIN.operator(v.id!), root.token);
        expect(back.status).toBe(200);
        expect(back.body.isOperator).toBe(false);
        const events = await s.get(`${ADMIN.events}?member=${v.id}`, root.token);
        expect(items(events).map((e) => e.type)).toEqual(
          expect.arrayContaining(['admin_make_operator', 'admin_remove_operator']),
        );
        expect(items(events).find((e) => e.type === 'admin_make_operator').detail).toEqual({
          actor: root.id,
        });
      },
    },
    {
      name: 'operator: a made operator reaches the console',
      method: 'GET',
      path: ADMIN.members,
      headers: as(() => op),
      status: 200,
    },
    {
      name: 'operator: another operator may not make operators (403)',
      method: 'POST',
      path: () => ADMIN.operator(plain.id),
      headers: as(() => op),
      status: 403,
      error: { message: 'Only the initial user can make or remove operators.' },
    },
    {
      name: 'operator: nobody demotes the initial user',
      method: 'DELETE',
      path: () => ADMIN.operator(root.id),
      headers: as(() => root),
      status: 403,
      error: { message: 'The initial user is always an operator.' },
    },
    {
      name: 'disable: an operator cannot disable the initial user',
      method: 'POST',
      path: () => ADMIN.disable(root.id),
      headers: as(() => op),
      status: 403,
      error: { message: 'The initial user cannot be disabled.' },
      after: async (s) => expect((await s.get(ADMIN.me, root.token)).status).toBe(200),
    },
    {
      name: 'delete: an operator cannot delete the initial user',
      method: 'DELETE',
      path: () => ADMIN.member(root.id),
      headers: as(() => op),
      status: 403,
      error: { message: 'The initial user cannot be deleted.' },
      after: async (s) => expect((await s.get(ADMIN.me, root.token)).status).toBe(200),
    },
    {
      name: 'disable: an operator cannot disable themself',
      method: 'POST',
      path: () => ADMIN.disable(op.id),
      headers: as(() => op),
      status: 403,
      error: { message: 'You cannot disable your own account.' },
    },
    ...(
      [
        ['GET', ADMIN.member(UNKNOWN)],
        ['POST', ADMIN.disable(UNKNOWN)],
        ['POST', ADMIN.enable(UNKNOWN)],
        ['POST', ADMIN.operator(UNKNOWN)],
        ['DELETE', ADMIN.operator(UNKNOWN)],
        ['POST', ADMIN.resend(UNKNOWN)],
        ['POST', ADMIN.resetTwoStep(UNKNOWN)],
        ['DELETE', ADMIN.member(UNKNOWN)],
        ['DELETE', ADMIN.code(UNKNOWN)],
        ['POST', ADMIN.retry(UNKNOWN)],
        ['GET', `${ADMIN.tree}?root=${UNKNOWN}`],
      ] as const
    ).map(([method, path]): Scenario => ({
      name: `${method} ${path}: an unknown id is a 404`,
      method,
      path,
      headers: as(() => root),
      status: 404,
      error: { message: MSG[404] },
    })),
    {
      name: 'invites: an unknown member is a 404',
      method: 'POST',
      path: ADMIN.invites(UNKNOWN),
      body: { count: 2 },
      headers: as(() => root),
      status: 404,
      error: { message: MSG[404] },
    },

    // ------------------------------------------------------------------------- the list
    {
      name: 'members: PocketBase list shape, newest first, each with role and state',
      method: 'GET',
      path: ADMIN.members,
      headers: as(() => op),
      status: 200,
      after: async (_s, _v, res) => {
        expect(Object.keys(res.body).sort()).toEqual(
          ['items', 'page', 'perPage', 'totalItems', 'totalPages'].sort(),
        );
        expect(res.body.page).toBe(1);
        expect(res.body.perPage).toBe(30);
        expect(res.body.totalItems).toBeGreaterThanOrEqual(3);
        for (const m of items(res)) {
          expect(Object.keys(m).sort()).toEqual(
            [...MEMBER_KEYS, 'invitedBy', 'inviterDeleted', 'lastSignIn', 'twoStep'].sort(),
          );
          expect(m.id).toMatch(ID_RE);
          expect(m.created).toMatch(DATE_RE);
        }
        const created = items(res).map((m) => m.created as string);
        expect(created).toEqual([...created].sort().reverse());
        const first = items(res).find((m) => m.id === root.id);
        expect(first).toMatchObject({ isOperator: true, isInitialUser: true, disabled: false });
        expect(items(res).find((m) => m.id === plain.id).isOperator).toBe(false);
      },
    },
    {
      name: 'members: a huge perPage is capped at 100; skipTotal gives -1 totals',
      method: 'GET',
      path: `${ADMIN.members}?perPage=1000000&skipTotal=1&page=1`,
      headers: as(() => root),
      status: 200,
      after: async (_s, _v, res) => {
        expect(res.body.perPage).toBe(100);
        expect(res.body.totalItems).toBe(-1);
        expect(res.body.totalPages).toBe(-1);
      },
    },
    {
      name: 'members: paging walks every member once (perPage 1)',
      method: 'GET',
      path: `${ADMIN.members}?perPage=1&page=2&sort=created`,
      headers: as(() => root),
      status: 200,
      after: async (s, _v, res) => {
        const total = res.body.totalItems as number;
        expect(res.body.totalPages).toBe(total);
        const seen = new Set<string>();
        for (let page = 1; page <= total; page++) {
          const r = await s.get(`${ADMIN.members}?perPage=1&page=${page}&sort=created`, root.token);
          seen.add(items(r)[0].id);
        }
        expect(seen.size).toBe(total);
        const first = await s.get(`${ADMIN.members}?perPage=1&sort=created`, root.token);
        expect(items(first)[0].id).toBe(root.id);
      },
    },
    {
      name: 'members: sort=email is by email',
      method: 'GET',
      path: `${ADMIN.members}?sort=email&perPage=100`,
      headers: as(() => root),
      status: 200,
      after: async (_s, _v, res) => {
        const emails = items(res).map((m) => m.email as string);
        expect(emails).toEqual([...emails].sort());
      },
    },
    {
      name: 'members: q finds by email fragment, any case',
      method: 'GET',
      path: () =>
        `${ADMIN.members}?q=${encodeURIComponent(plain.email.slice(5, 20).toUpperCase())}`,
      headers: as(() => root),
      status: 200,
      after: async (_s, _v, res) => {
        expect(items(res).map((m) => m.id)).toEqual([plain.id]);
        expect(res.body.totalItems).toBe(1);
      },
    },
    {
      name: 'members: q with %, _, quotes and backslashes matches them literally',
      before: async (s) => {
        const tag = Math.random().toString(36).slice(2, 8);
        const under = await s.unverifiedUser(`u_${tag}@example.com`);
        const plainU = await s.unverifiedUser(`uz${tag}@example.com`);
        const percent = await s.unverifiedUser(`p%${tag}@example.com`);
        const quote = await s.unverifiedUser(`o'${tag}@example.com`);
        return { tag, under: under.id, plainU: plainU.id, percent: percent.id, quote: quote.id };
      },
      method: 'GET',
      path: (v) => `${ADMIN.members}?q=${encodeURIComponent(`u_${v.tag}`)}`,
      headers: as(() => root),
      status: 200,
      after: async (s, v, res) => {
        expect(items(res).map((m) => m.id)).toEqual([v.under]);
        const q = async (text: string) =>
          items(await s.get(`${ADMIN.members}?q=${encodeURIComponent(text)}`, root.token)).map(
            (m) => m.id,
          );
        expect(await q(`p%${v.tag}`)).toEqual([v.percent]);
        expect(await q(`%${v.tag}`)).toEqual([v.percent]);
        expect(await q(`o'${v.tag}`)).toEqual([v.quote]);
        expect(await q(`'${v.tag}`)).toEqual([v.quote]);
        expect(await q(`_${v.tag}`)).toEqual([v.under]);
        expect(await q('%')).toEqual([v.percent]);
        expect(await q('\\')).toEqual([]);
        expect(await q(`\\${v.tag}`)).toEqual([]);
        expect(await q(`"'; DROP TABLE users; --`)).toEqual([]);
        expect(await q(`${v.tag}@`)).toHaveLength(4);
      },
    },
    {
      name: 'members: status=unverified|verified|disabled filter; disabled is neither of the others',
      before: async (s) => {
        const u = await s.unverifiedUser();
        const d = await s.verifiedUser();
        expect((await s.post(ADMIN.disable(d.id), {}, root.token)).status).toBe(200);
        return { unverified: u.id, disabled: d.id };
      },
      method: 'GET',
      path: `${ADMIN.members}?status=disabled&perPage=100`,
      headers: as(() => root),
      status: 200,
      after: async (s, v, res) => {
        expect(items(res).map((m) => m.id)).toContain(v.disabled);
        expect(items(res).every((m) => m.disabled)).toBe(true);
        const unverified = items(
          await s.get(`${ADMIN.members}?status=unverified&perPage=100`, root.token),
        );
        expect(unverified.map((m) => m.id)).toContain(v.unverified);
        expect(unverified.every((m) => !m.verified && !m.disabled)).toBe(true);
        const verified = items(
          await s.get(`${ADMIN.members}?status=verified&perPage=100`, root.token),
        );
        expect(verified.map((m) => m.id)).not.toContain(v.disabled);
        expect(verified.every((m) => m.verified && !m.disabled)).toBe(true);
      },
    },
    {
      name: 'members: an unknown status is a 400',
      method: 'GET',
      path: `${ADMIN.members}?status=${encodeURIComponent("verified' OR 1=1")}`,
      headers: as(() => root),
      status: 400,
      error: { message: 'Unknown status: use verified, unverified or disabled.' },
    },
    {
      name: 'members: an unknown sort is a 400',
      method: 'GET',
      path: `${ADMIN.members}?sort=-password_hash`,
      headers: as(() => root),
      status: 400,
      // PocketBase's sort grammar (admin/record-filter.ts): its message, and what is wrong.
      after: async (_s, _v, res) => {
        expect(res.body.message).toBe(MSG[400]);
        expect(res.body.data.sort).toEqual({
          code: 'validation_invalid_sort',
          message:
            'Cannot sort by "password_hash": sort by id, email, emailVisibility, verified, name, inviteCode, created, updated, disabled, twoStep, lastSignIn, invitedBy.',
        });
      },
    },

    // ------------------------------------------------------------------------- a member
    {
      name: 'member: the record, inviter, invitees, codes, sessions, last sign-in and events',
      before: async (s) => {
        const parent = await s.verifiedUser();
        const child = await invitedBy(s, parent);
        return { parent: parent.id, parentEmail: parent.email, child: child.id };
      },
      method: 'GET',
      path: (v) => ADMIN.member(v.parent!),
      headers: as(() => op),
      status: 200,
      notContains: ['password_hash', 'passwordHash', 'tokenKey', 'token_key', 'html'],
      after: async (s, v, res) => {
        const b = res.body;
        expect(Object.keys(b).sort()).toEqual(
          [
            ...MEMBER_KEYS,
            'codes',
            'events',
            'invitedBy',
            'inviterDeleted',
            'invitees',
            'lastSignIn',
            'sessions',
            'waysIn',
          ].sort(),
        );
        expect(b.waysIn).toEqual({ password: true, twoStep: false, passkeys: 0, providers: 0 });
        expect(b).toMatchObject({
          id: v.parent,
          email: v.parentEmail,
          invitedBy: { id: root.id, email: root.email },
          inviterDeleted: false,
          invitees: 1,
          disabled: false,
          isOperator: false,
        });
        expect(b.codes).toHaveLength(5);
        expect(b.codes.filter((c: Json) => c.usedBy === v.child)).toHaveLength(1);
        expect(b.sessions).toHaveLength(1);
        expect(Object.keys(b.sessions[0]).sort()).toEqual(
          ['created', 'id', 'ip', 'lastSeen', 'userAgent', 'viewedBy'].sort(),
        );
        expect(b.sessions[0].viewedBy).toBeNull();
        expect(b.lastSignIn).toMatch(DATE_RE);
        expect(b.events.map((e: Json) => e.type)).toContain('sign_up');
        const child = await s.get(ADMIN.member(v.child!), root.token);
        expect(child.body.invitedBy).toEqual({ id: v.parent, email: v.parentEmail });
      },
    },

    // ------------------------------------------------------------------------- disable
    {
      name: 'disable: sessions end at once, the right password gets 403, a wrong one 400',
      before: async (s) => {
        const u = await s.verifiedUser();
        const second = await s.tokenFor(u);
        return { id: u.id, email: u.email, password: u.password, a: u.token, b: second };
      },
      method: 'POST',
      path: (v) => ADMIN.disable(v.id!),
      headers: as(() => op),
      status: 200,
      after: async (s, v, res) => {
        expect(res.body).toMatchObject({ id: v.id, disabled: true });
        for (const token of [v.a!, v.b!]) {
          expect((await s.post(PATHS.refresh, {}, token)).status).toBe(401);
          expect((await s.get(PATHS.codes, token)).status).toBe(401);
        }
        const right = await s.login(v.email!, v.password!);
        expect(right.status).toBe(403);
        expect(right.body).toEqual({ data: {}, message: DISABLED, status: 403 });
        const wrong = await s.login(v.email!, 'Not-The-Password-1');
        expect(wrong.status).toBe(400);
        expect(wrong.body).toEqual({ data: {}, message: MSG.auth, status: 400 });
        const detail = await s.get(ADMIN.member(v.id!), root.token);
        expect(detail.body.sessions).toEqual([]);
        const events = await s.get(`${ADMIN.events}?member=${v.id}&type=admin_disable`, root.token);
        expect(items(events)).toHaveLength(1);
        expect(items(events)[0]).toMatchObject({
          member: v.id,
          email: v.email,
          detail: { actor: op.id, sessions: 2 },
        });
        const failed = await s.get(`${ADMIN.events}?member=${v.id}&type=sign_in`, root.token);
        expect(items(failed)[0]).toMatchObject({ outcome: 'failure' });
        expect(items(failed)[0].detail.reason).toMatch(/wrong_password|disabled/);
        // Enabled again: the password works.
        const enabled = await s.post(ADMIN.enable(v.id!), {}, op.token);
        expect(enabled.status).toBe(200);
        expect(enabled.body.disabled).toBe(false);
        expect((await s.login(v.email!, v.password!)).status).toBe(200);
      },
    },
    {
      name: "disable: the member's unused codes are refused at sign-up, and work again once enabled",
      before: async (s) => {
        const u = await s.verifiedUser();
        const codes = await s.get(PATHS.codes, u.token);
        return { id: u.id, code: codes.body.codes[0].code };
      },
      method: 'POST',
      path: (v) => ADMIN.disable(v.id!),
      headers: as(() => root),
      status: 200,
      after: async (s, v) => {
        const email = uniqueEmail('late');
        const refused = await s.signUp(v.code!, email, strongPassword());
        expect(refused.status).toBe(400);
        expect(refused.body.data.inviteCode.code).toBe('validation_invalid_invite_code');
        expect((await s.post(ADMIN.enable(v.id!), {}, root.token)).status).toBe(200);
        expect((await s.signUp(v.code!, email, strongPassword())).status).toBe(200);
      },
    },

    // ------------------------------------------------------------------------- codes
    {
      name: 'invites: gives the member count codes, which work at sign-up',
      method: 'POST',
      path: () => ADMIN.invites(plain.id),
      body: { count: 3 },
      headers: as(() => op),
      status: 200,
      after: async (s, _v, res) => {
        expect(res.body.codes).toHaveLength(3);
        for (const c of res.body.codes)
          expect(Object.keys(c).sort()).toEqual(['code', 'created', 'id']);
        const mine = await s.get(PATHS.codes, plain.token);
        expect(mine.body.codes.map((c: Json) => c.id)).toEqual(
          expect.arrayContaining(res.body.codes.map((c: Json) => c.id)),
        );
        expect(
          (await s.signUp(res.body.codes[0].code, uniqueEmail(), strongPassword())).status,
        ).toBe(200);
      },
    },
    ...[0, 51, 2.5, -1].map((count): Scenario => ({
      name: `invites: count ${count} is out of range (400)`,
      method: 'POST',
      path: () => ADMIN.invites(plain.id),
      body: { count },
      headers: as(() => root),
      status: 400,
      json: {
        data: {
          count: {
            code: 'validation_number_out_of_range',
            message: 'Must be a whole number from 1 to 50.',
            params: { min: 1, max: 50 },
          },
        },
        message: MSG.validate,
        status: 400,
      },
    })),
    {
      name: 'invites: a missing count is required (400)',
      method: 'POST',
      path: () => ADMIN.invites(plain.id),
      body: {},
      headers: as(() => root),
      status: 400,
      error: { message: MSG.validate, fields: { count: 'validation_required' } },
    },
    {
      name: 'invites: a count that is not a number is a loading error (400)',
      method: 'POST',
      path: () => ADMIN.invites(plain.id),
      body: { count: '3' },
      headers: as(() => root),
      status: 400,
      error: { message: MSG.load },
    },
    {
      name: 'revoke: an unused code is gone; sign-up with it fails',
      before: async (s) => {
        const given = await s.post(ADMIN.invites(plain.id), { count: 1 }, root.token);
        return { id: given.body.codes[0].id, code: given.body.codes[0].code };
      },
      method: 'DELETE',
      path: (v) => ADMIN.code(v.id!),
      headers: as(() => op),
      status: 204,
      empty: true,
      after: async (s, v) => {
        const res = await s.signUp(v.code!, uniqueEmail(), strongPassword());
        expect(res.body.data.inviteCode.code).toBe('validation_invalid_invite_code');
        expect((await s.del(ADMIN.code(v.id!), op.token)).status).toBe(404);
        const events = await s.get(
          `${ADMIN.events}?type=admin_revoke_code&member=${plain.id}`,
          root.token,
        );
        expect(items(events)[0].detail).toEqual({ actor: op.id, code: v.id });
      },
    },
    {
      name: 'revoke: a used code is a 400 and stays',
      before: async (s) => {
        const given = await s.post(ADMIN.invites(plain.id), { count: 1 }, root.token);
        const code = given.body.codes[0];
        expect((await s.signUp(code.code, uniqueEmail(), strongPassword())).status).toBe(200);
        return { id: code.id };
      },
      method: 'DELETE',
      path: (v) => ADMIN.code(v.id!),
      headers: as(() => op),
      status: 400,
      error: { message: 'This invite code has already been used.' },
    },

    // ------------------------------------------------------------------------- mail, delete
    {
      name: 'resend verification: an unverified member gets the mail at once',
      before: async (s) => {
        const u = await s.unverifiedUser();
        await s.verificationToken(u.email);
        return { id: u.id, email: u.email };
      },
      method: 'POST',
      path: (v) => ADMIN.resend(v.id!),
      headers: as(() => op),
      status: 204,
      empty: true,
      after: async (s, v) => {
        for (let i = 0; i < 100 && s.mail.countTo(v.email!, subjects().verify) < 2; i++)
          await sleep(50);
        expect(s.mail.countTo(v.email!, subjects().verify)).toBe(2);
      },
    },
    {
      name: 'resend verification: a verified member is a 400',
      method: 'POST',
      path: () => ADMIN.resend(plain.id),
      headers: as(() => op),
      status: 400,
      error: { message: "The member's email is already verified." },
    },
    {
      name: 'delete: the account is gone as with self-deletion; its invitees stay, their inviter deleted',
      before: async (s) => {
        const u = await s.verifiedUser();
        const child = await invitedBy(s, u);
        return { id: u.id, email: u.email, password: u.password, token: u.token, child: child.id };
      },
      method: 'DELETE',
      path: (v) => ADMIN.member(v.id!),
      headers: as(() => op),
      status: 204,
      empty: true,
      after: async (s, v) => {
        expect((await s.get(ADMIN.member(v.id!), root.token)).status).toBe(404);
        expect((await s.post(PATHS.refresh, {}, v.token)).status).toBe(401);
        expect((await s.login(v.email!, v.password!)).status).toBe(400);
        const child = await s.get(ADMIN.member(v.child!), root.token);
        expect(child.body).toMatchObject({ invitedBy: null, inviterDeleted: true });
        const events = await s.get(`${ADMIN.events}?member=${v.id}&type=admin_delete`, root.token);
        expect(items(events)[0]).toMatchObject({ email: null, detail: { actor: op.id } });
        // In the tree, under the initial user, marked.
        const tree = await s.get(`${ADMIN.tree}?depth=1`, root.token);
        const node = tree.body.children.find((c: Json) => c.id === v.child);
        expect(node).toMatchObject({ inviterDeleted: true, childCount: 0, descendants: 0 });
      },
    },

    // ------------------------------------------------------------------------- the tree
    {
      name: 'tree: who invited whom from a root, to depth, with branch counts',
      before: async (s) => {
        const a = await s.verifiedUser();
        const b = await invitedBy(s, a);
        const c = await invitedBy(s, b);
        const d = await invitedBy(s, b);
        const e = await invitedBy(s, c);
        return { a: a.id, b: b.id, c: c.id, d: d.id, e: e.id };
      },
      method: 'GET',
      path: (v) => `${ADMIN.tree}?root=${v.a}&depth=2`,
      headers: as(() => op),
      status: 200,
      after: async (s, v, res) => {
        const a = res.body;
        expect(Object.keys(a).sort()).toEqual(
          [
            'avatar',
            'childCount',
            'children',
            'created',
            'descendants',
            'disabled',
            'email',
            'id',
            'inviterDeleted',
            'isOperator',
            'name',
          ].sort(),
        );
        expect(a).toMatchObject({ id: v.a, childCount: 1, descendants: 4 });
        const b = a.children[0];
        expect(b).toMatchObject({ id: v.b, childCount: 2, descendants: 3 });
        expect(b.children.map((n: Json) => n.id)).toEqual([v.c, v.d]);
        const c = b.children[0];
        // Past the depth: counted, not shown.
        expect(c).toMatchObject({ childCount: 1, descendants: 1, children: [] });
        const deeper = await s.get(`${ADMIN.tree}?root=${v.c}&depth=5`, root.token);
        expect(deeper.body.children.map((n: Json) => n.id)).toEqual([v.e]);
        const zero = await s.get(`${ADMIN.tree}?root=${v.a}&depth=0`, root.token);
        expect(zero.body).toMatchObject({ childCount: 1, descendants: 4, children: [] });
        const top = await s.get(ADMIN.tree, root.token);
        expect(top.body.id).toBe(root.id);
        expect(top.body.descendants).toBeGreaterThanOrEqual(5);
      },
    },
    ...['-1', '11', 'x', '1.5', "1' OR 1=1"].map((depth): Scenario => ({
      name: `tree: depth ${depth} is a 400`,
      method: 'GET',
      path: `${ADMIN.tree}?depth=${encodeURIComponent(depth)}`,
      headers: as(() => root),
      status: 400,
      error: { message: 'Depth must be a whole number from 0 to 10.' },
    })),

    // ------------------------------------------------------------------------- outbox
    {
      name: 'outbox: failing mail with attempts and last error (no body); Retry Now; 24-hour counts',
      before: async (s) => {
        const u = await s.verifiedUser();
        await s.mail.stop();
        expect((await s.post(PATHS.requestReset, { email: u.email })).status).toBe(204);
        for (let i = 0; i < 100; i++) {
          const r = await s.get(ADMIN.outbox, root.token);
          if (items(r).some((m) => m.recipient === u.email && m.attempts > 0)) break;
          await sleep(50);
        }
        return { email: u.email };
      },
      method: 'GET',
      path: ADMIN.outbox,
      headers: as(() => op),
      status: 200,
      notContains: ['reset-password?token', 'html', '<p>'],
      after: async (s, v, res) => {
        try {
          const mail = items(res).find((m) => m.recipient === v.email);
          expect(Object.keys(mail).sort()).toEqual(
            [
              'attempts',
              'created',
              'id',
              'lastError',
              'nextAttempt',
              'recipient',
              'subject',
              'userId',
            ].sort(),
          );
          expect(mail.attempts).toBeGreaterThan(0);
          expect(mail.lastError).toEqual(expect.any(String));
          expect(mail.nextAttempt).toMatch(DATE_RE);
          expect(mail.subject).toBe(subjects().reset);
          expect(res.body.stats.failing).toBeGreaterThan(0);
          expect(res.body.stats.failedLast24h).toBeGreaterThan(0);
          expect(res.body.totalItems).toBe(res.body.stats.queued);
          await s.mail.start();
          const retry = await s.post(ADMIN.retry(mail.id), {}, op.token);
          expect(retry.status).toBe(204);
          await s.mail.waitForMailTo(v.email!, subjects().reset, 10_000);
          for (let i = 0; i < 100; i++) {
            const r = await s.get(ADMIN.outbox, root.token);
            if (!items(r).some((m) => m.id === mail.id)) break;
            await sleep(50);
          }
          const after = await s.get(ADMIN.outbox, root.token);
          expect(items(after).some((m) => m.id === mail.id)).toBe(false);
          expect(after.body.stats.sentLast24h).toBeGreaterThan(0);
          expect((await s.post(ADMIN.retry(mail.id), {}, op.token)).status).toBe(404);
        } finally {
          await s.mail.start().catch(() => {});
        }
      },
    },
    {
      name: "test mail: sent to the operator's own address",
      method: 'POST',
      path: ADMIN.testMail,
      headers: as(() => op),
      status: 204,
      empty: true,
      after: async (s) => {
        const mail = await s.mail.waitForMailTo(op.email, 'Gatehouse test email', 10_000);
        expect(mail).toBeTruthy();
        const events = await s.get(`${ADMIN.events}?type=admin_test_mail`, root.token);
        expect(items(events)[0]).toMatchObject({ member: op.id, detail: { actor: op.id } });
      },
    },

    // ------------------------------------------------------------------------- the log
    {
      name: 'security log: every member, newest first, paged, filtered by member and type',
      method: 'GET',
      path: `${ADMIN.events}?perPage=2`,
      headers: as(() => op),
      status: 200,
      after: async (s, _v, res) => {
        expect(res.body.perPage).toBe(2);
        expect(items(res)).toHaveLength(2);
        expect(res.body.totalItems).toBeGreaterThan(2);
        expect(Object.keys(items(res)[0]).sort()).toEqual(
          [
            'actor',
            'created',
            'detail',
            'email',
            'id',
            'ip',
            'member',
            'outcome',
            'type',
            'userAgent',
          ].sort(),
        );
        const members = new Set(
          items(await s.get(`${ADMIN.events}?perPage=100`, root.token)).map((e) => e.member),
        );
        expect(members.size).toBeGreaterThan(1);
        const mine = await s.get(`${ADMIN.events}?member=${plain.id}&type=sign_up`, root.token);
        expect(items(mine)).toHaveLength(1);
        expect(items(mine)[0]).toMatchObject({ member: plain.id, type: 'sign_up' });
        const none = await s.get(
          `${ADMIN.events}?type=${encodeURIComponent("x' OR 1=1 --")}`,
          root.token,
        );
        expect(none.status).toBe(200);
        expect(items(none)).toEqual([]);
        const huge = await s.get(`${ADMIN.events}?perPage=999999&skipTotal=true`, root.token);
        expect(huge.body.perPage).toBe(100);
        expect(huge.body.totalItems).toBe(-1);
      },
    },
  ];

  scenarios(() => t, rows);

  // ------------------------------------------------------------------------- the security log's actor
  it('security log: an operator action names its operator; one whose account is gone has no email', async () => {
    const gone = await t.verifiedUser();
    expect((await t.post(ADMIN.operator(gone.id), {}, root.token)).status).toBe(200);
    const target = await t.verifiedUser();
    expect((await t.post(ADMIN.disable(target.id), {}, op.token)).status).toBe(200);
    expect((await t.post(ADMIN.enable(target.id), {}, gone.token)).status).toBe(200);
    expect((await t.del(ADMIN.member(gone.id), root.token)).status).toBe(204);

    const log = items(await t.get(`${ADMIN.events}?member=${target.id}`, root.token));
    expect(log.find((e) => e.type === 'admin_disable').actor).toEqual({
      id: op.id,
      email: op.email,
    });
    expect(log.find((e) => e.type === 'admin_enable').actor).toEqual({
      id: gone.id,
      email: null,
    });
    // Not an operator action: no actor.
    expect(log.find((e) => e.type === 'sign_up').actor).toBeNull();
  });

  // ------------------------------------------------------------------------- reset two-step
  /** A verified member with two-step sign-in on and one passkey. */
  const secured = async () => {
    const m = await twoStepMember(t);
    const key = new SoftAuthenticator(APP_URL);
    const options = await t.post(PATHS.passkeyOptions, {}, m.token);
    expect(options.status, options.text).toBe(200);
    const added = await t.post(
      PATHS.passkeys,
      { name: 'Phone', response: key.register(options.body) },
      m.token,
    );
    expect(added.status, added.text).toBe(200);
    return { ...m, key };
  };
  const passkeySignIn = async (key: SoftAuthenticator) => {
    const options = await t.post(PATHS.passkeyLoginOptions, {});
    return t.post(PATHS.authWithPasskey, { response: key.authenticate(options.body) });
  };

  it('reset two-step: two-step off and passkeys gone, the password alone signs in, the member is mailed', async () => {
    const m = await secured();
    expect((await t.login(m.email, m.password)).status).toBe(401);
    const before = await t.get(ADMIN.member(m.id), op.token);
    expect(before.body.waysIn).toEqual({
      password: true,
      twoStep: true,
      passkeys: 1,
      providers: 0,
    });

    const res = await t.post(ADMIN.resetTwoStep(m.id), {}, op.token);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(MEMBER_KEYS);
    expect(res.body).toMatchObject({ id: m.id, email: m.email, disabled: false });

    // The password alone signs in now; the passkey and the recovery codes are gone.
    const login = await t.login(m.email, m.password);
    expect(login.status, login.text).toBe(200);
    expect(login.body.record.id).toBe(m.id);
    expect((await passkeySignIn(m.key)).status).toBe(400);
    expect((await t.get(PATHS.totp, login.body.token)).body.enabled).toBe(false);
    expect((await t.get(PATHS.passkeys, login.body.token)).body.items).toEqual([]);
    const after = await t.get(ADMIN.member(m.id), op.token);
    expect(after.body.waysIn).toEqual({
      password: true,
      twoStep: false,
      passkeys: 0,
      providers: 0,
    });

    const mail = await t.mail.waitForMailTo(m.email, RESET_SUBJECT, 10_000);
    expect(mail.text).toContain('two-step sign-in is off');
    expect(mail.text).toContain('your passkey was removed');
    const events = items(
      await t.get(`${ADMIN.events}?member=${m.id}&type=admin_reset_two_step`, root.token),
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      detail: { actor: op.id, twoStep: true, passkeys: 1 },
      actor: { id: op.id, email: op.email },
    });

    // Nothing left to reset: a 400 that sends nothing more.
    const again = await t.post(ADMIN.resetTwoStep(m.id), {}, op.token);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('This member has neither two-step sign-in nor a passkey.');
    await sleep(300);
    expect(t.mail.countTo(m.email, RESET_SUBJECT)).toBe(1);
  });

  it("reset two-step: a stale operator session gets 403 Confirm it's you, a member 403; nothing changes", async () => {
    const m = await secured();
    const stale = { ...op, token: await t.tokenFor(op) };
    await staleSession(t, stale.token);
    const refused = await t.post(ADMIN.resetTwoStep(m.id), {}, stale.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ status: 403, message: CONFIRM_IT_IS_YOU, data: {} });
    const member = await t.post(ADMIN.resetTwoStep(m.id), {}, plain.token);
    expect(member.status).toBe(403);
    expect(member.body.message).toBe(MSG[403]);
    expect((await t.login(m.email, m.password)).status).toBe(401);
    expect((await passkeySignIn(m.key)).status).toBe(200);
    await sleep(300);
    expect(t.mail.countTo(m.email, RESET_SUBJECT)).toBe(0);
  });

  it('reset two-step: refused for oneself, for the initial user, and when passkeys are the only way in', async () => {
    const self = await t.post(ADMIN.resetTwoStep(op.id), {}, op.token);
    expect(self.status).toBe(403);
    expect(self.body.message).toBe(
      'You cannot reset your own two-step sign-in: turn it off or remove passkeys in Settings.',
    );
    const initial = await t.post(ADMIN.resetTwoStep(root.id), {}, op.token);
    expect(initial.status).toBe(403);
    expect(initial.body.message).toBe(
      "The initial user's two-step sign-in can only be reset from the command line.",
    );

    // A member without a password of their own (joined with a provider since disconnected).
    const m = await secured();
    await withDatabase(t, (db) =>
      db.updateTable('users').set({ password_set: 0 }).where('id', '=', m.id).execute(),
    );
    const refused = await t.post(ADMIN.resetTwoStep(m.id), {}, op.token);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      'This member has no password and no connected account: their passkeys are their only way in. Ask them to choose a password with "Forgot password" on the sign-in screen first, then reset two-step sign-in.',
    );
    expect((await passkeySignIn(m.key)).status).toBe(200);
    const detail = await t.get(ADMIN.member(m.id), op.token);
    expect(detail.body.waysIn).toEqual({
      password: false,
      twoStep: true,
      passkeys: 1,
      providers: 0,
    });
    await sleep(300);
    expect(t.mail.countTo(m.email, RESET_SUBJECT)).toBe(0);
  });
});
