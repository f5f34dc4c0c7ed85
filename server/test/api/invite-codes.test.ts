import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATE_RE, MSG, PATHS } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
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
        expect(Object.keys(res.body)).toEqual(['codes', 'used']);
        expectCodeList(res.body.codes, PER_USER);
        expect(res.body.used).toEqual([]);
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

  it('the codes people joined with are listed with who joined: the newest first, their name and avatar, their email only when they show it, a deleted account as null', async () => {
    const owner = await t.verifiedUser();
    const [first, second, third] = (await t.get(PATHS.codes, owner.token)).body.codes as Json[];

    // Joins with a name; the email stays hidden (emailVisibility is off by default).
    const named = await t.signUp(first.code, uniqueEmail('named'), strongPassword(), {
      name: 'Ada Lovelace',
    });
    expect(named.status, named.text).toBe(200);
    // Shows their email, has no name.
    const shownEmail = uniqueEmail('shown');
    const shown = await t.signUp(second.code, shownEmail, strongPassword(), {
      emailVisibility: true,
    });
    expect(shown.status, shown.text).toBe(200);
    // Joins, then deletes the account.
    const gone = { email: uniqueEmail('gone'), password: strongPassword() };
    const goneSignUp = await t.signUp(third.code, gone.email, gone.password);
    expect(goneSignUp.status, goneSignUp.text).toBe(200);
    await t.post(PATHS.confirmVerification, { token: await t.verificationToken(gone.email) });
    const goneToken = await t.tokenFor(gone);
    expect((await t.del(PATHS.record(goneSignUp.body.id), goneToken)).status).toBe(204);

    const res = await t.get(PATHS.codes, owner.token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['codes', 'used']);
    expectCodeList(res.body.codes, PER_USER - 3);
    expect(res.body.codes.map((c: Json) => c.code)).not.toContain(first.code);
    expect(res.body.used).toEqual([
      { id: third.id, code: third.code, usedAt: expect.stringMatching(DATE_RE), member: null },
      {
        id: second.id,
        code: second.code,
        usedAt: expect.stringMatching(DATE_RE),
        member: { id: shown.body.id, name: '', email: shownEmail, avatar: '' },
      },
      {
        id: first.id,
        code: first.code,
        usedAt: expect.stringMatching(DATE_RE),
        member: { id: named.body.id, name: 'Ada Lovelace', avatar: '' },
      },
    ]);
    const usedAt = (res.body.used as { usedAt: string }[]).map((u) => u.usedAt);
    expect(usedAt, 'most recently used first').toEqual([...usedAt].sort().reverse());
  });

  it('an invitee who sets an avatar shows it in their inviter’s list, and the inviter may fetch it', async () => {
    const owner = await t.verifiedUser();
    const [code] = (await t.get(PATHS.codes, owner.token)).body.codes as { code: string }[];
    const invitee = { email: uniqueEmail('face'), password: strongPassword() };
    const joined = await t.signUp(code!.code, invitee.email, invitee.password);
    expect(joined.status, joined.text).toBe(200);
    await t.post(PATHS.confirmVerification, { token: await t.verificationToken(invitee.email) });
    const token = await t.tokenFor(invitee);
    const png = await sharp({
      create: { width: 32, height: 32, channels: 3, background: { r: 20, g: 120, b: 90 } },
    })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('name', 'Grace');
    form.append('avatar', new File([png], 'me.png', { type: 'image/png' }));
    const updated = await fetch(`${t.url}${PATHS.record(joined.body.id)}`, {
      method: 'PATCH',
      headers: { Authorization: token },
      body: form,
    });
    expect(updated.status).toBe(200);
    const avatar = ((await updated.json()) as { avatar: string }).avatar;
    expect(avatar).toMatch(/^me[a-z0-9_]+\.png$/);

    const list = await t.get(PATHS.codes, owner.token);
    expect(list.body.used[0].member).toEqual({ id: joined.body.id, name: 'Grace', avatar });
    const fileToken = (await t.post('/api/files/token', {}, owner.token)).body.token as string;
    const image = await fetch(
      `${t.url}/api/files/users/${joined.body.id}/${avatar}?thumb=100x100&token=${fileToken}`,
    );
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
  });

  it('lists at most the 50 most recently used codes; codes burnt by nobody are not among them', async () => {
    const owner = await t.verifiedUser();
    const invitee = await t.verifiedUser();
    // 55 codes used by the invitee, one a minute apart, and one burnt (used by nobody) last.
    await withDatabase(t, (d) =>
      d
        .insertInto('invite_codes')
        .values([
          ...Array.from({ length: 55 }, (_, i) => ({
            id: `joined${String(i).padStart(9, '0')}`,
            code: `JOINED${String(i).padStart(14, '0')}`,
            owner_id: owner.id,
            bootstrap: 0,
            used_by: invitee.id,
            used_at: `2026-01-01 10:${String(i).padStart(2, '0')}:00.000Z`,
            created: '2026-01-01 09:00:00.000Z',
          })),
          {
            id: 'burnt0000000000',
            code: 'BURNT000000000000000',
            owner_id: owner.id,
            bootstrap: 0,
            used_by: null,
            used_at: '2026-01-01 11:00:00.000Z',
            created: '2026-01-01 09:00:00.000Z',
          },
        ])
        .execute(),
    );
    const res = await t.get(PATHS.codes, owner.token);
    expect(res.status).toBe(200);
    const used = res.body.used as { id: string; usedAt: string }[];
    expect(used).toHaveLength(50);
    expect(used[0]!.id).toBe('joined000000054');
    expect(used[49]!.id).toBe('joined000000005');
    expect(used.map((u) => u.id)).not.toContain('burnt0000000000');
    expect(res.body.codes).toHaveLength(PER_USER);
  });

  it('codes are distinct across users and across generations', async () => {
    const a = (await t.get(PATHS.codes, alice.token)).body.codes.map((c: Json) => c.code);
    const i = (await t.get(PATHS.codes, initial.token)).body.codes.map((c: Json) => c.code);
    const all = [...a, ...i];
    expect(new Set(all).size).toBe(all.length);
  });
});
