import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';
import { DATE_RE, ID_RE, MSG, PATHS } from '../support/contract.js';
import { jwtPayload } from '../support/http.js';
import { DATABASES, startTestServer, type TestServer } from '../support/server.js';
import { scenarios, type Scenario } from '../support/table.js';

/** A verified member signed in on two devices (tokens a and b). */
async function twoDevices(s: TestServer) {
  const u = await s.verifiedUser();
  const b = await s.request('POST', PATHS.login, {
    body: { identity: u.email, password: u.password },
    headers: {
      'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    },
  });
  expect(b.status).toBe(200);
  return {
    email: u.email,
    password: u.password,
    id: u.id,
    a: u.token,
    b: b.body.token as string,
    sidA: jwtPayload(u.token).sid as string,
    sidB: jwtPayload(b.body.token).sid as string,
  };
}

const refreshStatus = async (s: TestServer, token: string) =>
  (await s.post(PATHS.refresh, {}, token)).status;

describe.each(DATABASES)('sessions on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
  });
  afterAll(() => t?.close());

  const needsAuth = { message: MSG.needsAuth };
  const rows: Scenario[] = [
    {
      name: 'list: guests get 401',
      method: 'GET',
      path: PATHS.sessions,
      status: 401,
      error: needsAuth,
    },
    {
      name: 'list: each sign-in is a session, newest first, with its browser, IP and "current"',
      before: twoDevices,
      method: 'GET',
      path: PATHS.sessions,
      headers: (v) => ({ Authorization: v.a! }),
      status: 200,
      after: async (_s, v, res) => {
        const items = res.body.items as Record<string, unknown>[];
        expect(items.map((i) => i.id)).toEqual([v.sidB, v.sidA]);
        expect(items.map((i) => i.current)).toEqual([false, true]);
        for (const item of items) {
          expect(Object.keys(item).sort()).toEqual(
            ['created', 'current', 'id', 'ip', 'lastSeen', 'userAgent', 'viewedBy'].sort(),
          );
          // The member's own sessions: no operator is viewing as them.
          expect(item.viewedBy).toBeNull();
          expect(item.id).toMatch(ID_RE);
          expect(item.created).toMatch(DATE_RE);
          expect(item.lastSeen).toMatch(DATE_RE);
          expect(item.ip).toBe('127.0.0.1');
        }
        expect(items[0]!.userAgent).toContain('Firefox/128.0');
      },
    },
    {
      name: 'end one: the other device is refused on its next request; this one goes on',
      before: twoDevices,
      method: 'DELETE',
      path: (v) => PATHS.session(v.sidB!),
      headers: (v) => ({ Authorization: v.a! }),
      status: 204,
      empty: true,
      after: async (s, v) => {
        expect(await refreshStatus(s, v.b!)).toBe(401);
        expect((await s.get(PATHS.codes, v.b)).status).toBe(401);
        expect(await refreshStatus(s, v.a!)).toBe(200);
      },
    },
    {
      name: "end one: another member's session is a 404 and keeps working",
      before: async (s) => {
        const mine = await twoDevices(s);
        const other = await twoDevices(s);
        return { a: mine.a, other: other.sidA, otherToken: other.a };
      },
      method: 'DELETE',
      path: (v) => PATHS.session(v.other!),
      headers: (v) => ({ Authorization: v.a! }),
      status: 404,
      error: { message: MSG[404] },
      after: async (s, v) => {
        expect(await refreshStatus(s, v.otherToken!)).toBe(200);
      },
    },
    {
      name: 'end one: an unknown id is a 404',
      before: twoDevices,
      method: 'DELETE',
      path: PATHS.session('nosuchsession00'),
      headers: (v) => ({ Authorization: v.a! }),
      status: 404,
      error: { message: MSG[404] },
    },
    {
      name: 'end one: guests get 401',
      before: twoDevices,
      method: 'DELETE',
      path: (v) => PATHS.session(v.sidB!),
      status: 401,
      error: needsAuth,
      after: async (s, v) => {
        expect(await refreshStatus(s, v.b!)).toBe(200);
      },
    },
    {
      name: 'end all others: every other device is refused, this one goes on',
      before: async (s) => {
        const v = await twoDevices(s);
        const c = await s.login(v.email, v.password);
        return { ...v, c: c.body.token as string };
      },
      method: 'DELETE',
      path: PATHS.sessions,
      headers: (v) => ({ Authorization: v.a! }),
      status: 204,
      empty: true,
      after: async (s, v) => {
        expect(await refreshStatus(s, v.b!)).toBe(401);
        expect(await refreshStatus(s, v.c!)).toBe(401);
        expect(await refreshStatus(s, v.a!)).toBe(200);
        const list = await s.get(PATHS.sessions, v.a);
        expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([v.sidA]);
      },
    },
    {
      name: 'log out: ends this session only; the token is refused everywhere afterwards',
      before: twoDevices,
      method: 'POST',
      path: PATHS.logout,
      headers: (v) => ({ Authorization: v.a! }),
      status: 204,
      empty: true,
      after: async (s, v) => {
        expect(await refreshStatus(s, v.a!)).toBe(401);
        expect((await s.get(PATHS.codes, v.a)).status).toBe(401);
        expect((await s.get(PATHS.record(v.id!), v.a)).status).toBe(404);
        expect(await refreshStatus(s, v.b!)).toBe(200);
      },
    },
    {
      name: 'log out: a guest gets 401',
      method: 'POST',
      path: PATHS.logout,
      status: 401,
      error: needsAuth,
    },
    {
      name: 'auth-refresh keeps the session: same sid, later last seen',
      before: twoDevices,
      method: 'POST',
      path: PATHS.refresh,
      headers: (v) => ({ Authorization: v.a! }),
      status: 200,
      after: async (s, v, res) => {
        expect(jwtPayload(res.body.token).sid).toBe(v.sidA);
        const list = await s.get(PATHS.sessions, res.body.token);
        const a = list.body.items.find((i: { id: string }) => i.id === v.sidA);
        expect(a.lastSeen >= a.created).toBe(true);
        expect(list.body.items).toHaveLength(2);
      },
    },
    {
      name: 'a password reset ends every session',
      before: twoDevices,
      method: 'POST',
      path: PATHS.confirmReset,
      body: () => ({}),
      status: 400,
      after: async (s, v) => {
        const token = await s.resetToken(v.email!);
        const res = await s.post(PATHS.confirmReset, {
          token,
          password: 'Quiet-Harbor-7731',
          passwordConfirm: 'Quiet-Harbor-7731',
        });
        expect(res.status).toBe(204);
        expect(await refreshStatus(s, v.a!)).toBe(401);
        expect(await refreshStatus(s, v.b!)).toBe(401);
        const fresh = await s.login(v.email!, 'Quiet-Harbor-7731');
        const list = await s.get(PATHS.sessions, fresh.body.token);
        expect(list.body.items).toHaveLength(1);
      },
    },
  ];

  scenarios(() => t, rows);

  it('a sign-in whose record cannot be written opens no session', async () => {
    const u = await t.verifiedUser();
    // The security log refuses sign-in records for a while, as a full disk or a lost connection
    // would: the database itself, through a trigger.
    const outside = openDatabase({ dataDir: t.dataDir, databaseUrl: t.databaseUrl });
    const sessions = async () =>
      (await outside.db.selectFrom('sessions').select('id').where('user_id', '=', u.id).execute())
        .length;
    try {
      const before = await sessions();
      const allow = await refuseSignInRecords(outside.db, db);
      const refused = await t.login(u.email, u.password);
      expect(refused.status).toBe(500);
      expect(refused.body.token).toBeUndefined();
      expect(await sessions()).toBe(before);

      await allow();
      expect((await t.login(u.email, u.password)).status).toBe(200);
      expect(await sessions()).toBe(before + 1);
    } finally {
      await outside.close();
    }
  });
});

/**
 * Makes the database refuse every new sign-in record in the security log; the result allows them
 * again.
 */
async function refuseSignInRecords(
  db: Kysely<Database>,
  kind: 'sqlite' | 'postgres',
): Promise<() => Promise<void>> {
  const allow = async () => {
    await sql`DROP TRIGGER refuse_sign_in ${sql.raw(kind === 'postgres' ? 'ON security_events' : '')}`.execute(
      db,
    );
  };
  if (kind === 'sqlite') {
    await sql`CREATE TRIGGER refuse_sign_in BEFORE INSERT ON security_events
      WHEN NEW.type = 'sign_in' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`.execute(db);
    return allow;
  }
  await sql`CREATE OR REPLACE FUNCTION refuse_sign_in() RETURNS trigger LANGUAGE plpgsql AS
    $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`.execute(db);
  await sql`CREATE TRIGGER refuse_sign_in BEFORE INSERT ON security_events FOR EACH ROW
    WHEN (NEW.type = 'sign_in') EXECUTE FUNCTION refuse_sign_in()`.execute(db);
  return allow;
}
