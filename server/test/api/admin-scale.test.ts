import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/passwords.js';
import { openDatabase } from '../../src/db/connect.js';
import { migrateTo } from '../../src/db/migrations/index.js';
import type { Database, NewUser } from '../../src/db/schema.js';
import { withDatabase } from '../support/db.js';
import type { Json } from '../support/http.js';
import {
  createPgDatabase,
  DATABASES,
  startTestServer,
  strongPassword,
  type TestServer,
  type User,
} from '../support/server.js';

const ADMIN = {
  members: '/api/admin/members',
  member: (id: string) => `/api/admin/members/${encodeURIComponent(id)}`,
  disable: (id: string) => `/api/admin/members/${encodeURIComponent(id)}/disable`,
  enable: (id: string) => `/api/admin/members/${encodeURIComponent(id)}/enable`,
  tree: '/api/admin/invite-tree',
} as const;

/**
 * The console's figures when members arrive other than one by one through the API (an import, an
 * upgrade, the benchmark's seeding): the totals, the search beyond its few-candidates path and the
 * invite tree's branch sizes are kept by the database itself (migration 0010).
 */

const BASE = Date.parse('2025-01-01T00:00:00Z');

interface Seeded {
  id: string;
  email: string;
  invitedBy: string | null;
  verified: number;
  disabled: number;
}

/** `count` members: member n invited by member ⌊n/3⌋ or 1 (member 1 by `initialId`). */
function members(count: number, initialId: string, prefix: string): Seeded[] {
  const out: Seeded[] = [];
  for (let n = 1; n <= count; n++) {
    const id = `${prefix}${n.toString().padStart(15 - prefix.length, '0')}`;
    out.push({
      id,
      // Every member's email holds "common"; one in 500 also "rare".
      email: `${n % 500 === 0 ? 'rare' : 'm'}${n}.common@example.org`,
      invitedBy: n === 1 ? initialId : out[Math.max(1, Math.floor(n / 3)) - 1]!.id,
      verified: n % 10 === 0 ? 0 : 1,
      disabled: n % 100 === 0 ? 1 : 0,
    });
  }
  return out;
}

async function insert(db: Kysely<Database>, rows: Seeded[], hash: string): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    const values: NewUser[] = rows.slice(i, i + 500).map((m, j) => {
      const created = new Date(BASE + (i + j) * 1000).toISOString().replace('T', ' ');
      return {
        id: m.id,
        email: m.email,
        password_hash: hash,
        token_key: 'seeded',
        verified: m.verified,
        email_visibility: 0,
        is_initial_user: m.invitedBy === null ? 1 : 0,
        is_operator: m.invitedBy === null ? 1 : 0,
        disabled: m.disabled,
        invite_code: 'SEEDED',
        invited_by: m.invitedBy,
        verification_sent_at: null,
        reset_sent_at: null,
        created,
        updated: created,
      };
    });
    await db.insertInto('users').values(values).execute();
  }
}

/** Branch sizes as the tree should show them, computed from the links (deleted ids left out). */
function expectedTree(links: Array<[string, string | null]>, initialId: string) {
  const present = new Set(links.map(([id]) => id));
  const parent = new Map<string, string | null>();
  for (const [id, by] of links) {
    parent.set(id, by === null ? null : present.has(by) ? by : initialId);
  }
  const children = new Map<string, number>();
  const descendants = new Map<string, number>();
  for (const [id] of links) {
    for (let p = parent.get(id); p; p = parent.get(p)) {
      descendants.set(p, (descendants.get(p) ?? 0) + 1);
    }
    const p = parent.get(id);
    if (p) children.set(p, (children.get(p) ?? 0) + 1);
  }
  return (id: string) => ({
    childCount: children.get(id) ?? 0,
    descendants: descendants.get(id) ?? 0,
  });
}

describe.each(DATABASES)('the operator console with members written in bulk on %s', (db) => {
  const COUNT = 2500;
  let t: TestServer;
  let root: User;
  let seeded: Seeded[];
  beforeAll(async () => {
    t = await startTestServer({ db });
    root = await t.initialUser();
    seeded = members(COUNT, root.id, 'bulk');
    await withDatabase(t, async (d) => {
      const { password_hash } = await d
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', root.id)
        .executeTakeFirstOrThrow();
      await insert(d, seeded, password_hash);
    });
  });
  afterAll(() => t?.close());

  const list = (query: string) => t.get(`${ADMIN.members}?${query}`, root.token);

  it('the totals count every member, per status, and follow changes', async () => {
    const all = await list('perPage=1');
    // The initial user plus the seeded members.
    expect(all.body).toMatchObject({ totalItems: COUNT + 1, totalPages: COUNT + 1 });
    const disabled = seeded.filter((m) => m.disabled === 1).length;
    const unverified = seeded.filter((m) => m.disabled === 0 && m.verified === 0).length;
    expect((await list('status=disabled')).body.totalItems).toBe(disabled);
    expect((await list('status=unverified')).body.totalItems).toBe(unverified);
    expect((await list('status=verified')).body.totalItems).toBe(COUNT + 1 - disabled - unverified);

    const member = seeded[2]!;
    expect((await t.post(ADMIN.disable(member.id), {}, root.token)).status).toBe(200);
    expect((await list('status=disabled')).body.totalItems).toBe(disabled + 1);
    expect((await t.post(ADMIN.enable(member.id), {}, root.token)).status).toBe(200);
    expect((await list('status=disabled')).body.totalItems).toBe(disabled);
    const joined = await t.verifiedUser();
    expect((await list('perPage=1')).body.totalItems).toBe(COUNT + 2);
    expect((await t.del(ADMIN.member(joined.id), root.token)).status).toBe(204);
    expect((await list('perPage=1')).body.totalItems).toBe(COUNT + 1);
  });

  it('a search matching most members pages and counts them like one matching a few', async () => {
    const many = await list('q=COMMON&perPage=5');
    expect(many.body.totalItems).toBe(COUNT);
    // Newest first: the last seeded ones.
    expect(many.body.items.map((m: Json) => m.email)).toEqual(
      seeded
        .slice(-5)
        .reverse()
        .map((m) => m.email),
    );
    const skipped = await list('q=common&perPage=5&skipTotal=1');
    expect(skipped.body.items).toEqual(many.body.items);
    expect(skipped.body.totalItems).toBe(-1);

    const few = await list('q=rare&sort=email&perPage=100');
    const rare = seeded.filter((m) => m.email.includes('rare')).map((m) => m.email);
    expect(few.body.totalItems).toBe(rare.length);
    expect(few.body.items.map((m: Json) => m.email)).toEqual([...rare].sort());
    // A fragment shorter than the index's three letters, and one found nowhere.
    expect((await list('q=m7&perPage=1')).body.totalItems).toBe(
      seeded.filter((m) => m.email.includes('m7')).length,
    );
    expect((await list('q=nowhere-at-all')).body).toMatchObject({ totalItems: 0, items: [] });
  });

  it('the tree shows branch sizes, also after a member in the middle is deleted', async () => {
    const gone = seeded[9]!; // member 10: invited by 3, invites 30, 31 and 32
    expect((await t.del(ADMIN.member(gone.id), root.token)).status).toBe(204);
    const links: Array<[string, string | null]> = [
      [root.id, null],
      ...seeded.filter((m) => m !== gone).map((m): [string, string | null] => [m.id, m.invitedBy]),
    ];
    // Members who signed up through the API in this file's other tests.
    const others = await withDatabase(t, (d) =>
      d
        .selectFrom('users')
        .select(['id', 'invited_by'])
        .where('id', 'not in', [root.id, ...seeded.map((m) => m.id)])
        .execute(),
    );
    links.push(...others.map((o): [string, string | null] => [o.id, o.invited_by]));
    const expected = expectedTree(links, root.id);

    const top = await t.get(`${ADMIN.tree}?depth=1`, root.token);
    expect(top.body).toMatchObject({ id: root.id, ...expected(root.id) });
    const orphans = top.body.children.filter((n: Json) => n.inviterDeleted);
    expect(orphans.map((n: Json) => n.id)).toEqual([29, 30, 31].map((i) => seeded[i]!.id));
    for (const node of top.body.children) expect(node).toMatchObject(expected(node.id));

    const five = seeded[4]!;
    const branch = await t.get(`${ADMIN.tree}?root=${five.id}&depth=3`, root.token);
    const walk = (node: Json): void => {
      expect(node, node.id).toMatchObject(expected(node.id));
      node.children.forEach(walk);
    };
    walk(branch.body);
    expect(branch.body.children.map((n: Json) => n.id)).toEqual(
      [14, 15, 16].map((i) => seeded[i]!.id),
    );
  });

  it('a long list of children comes in pages: limit and offset', async () => {
    const first = await t.get(`${ADMIN.tree}?depth=1&limit=2`, root.token);
    // Member 1 and the three whose inviter was deleted above.
    expect(first.body.children).toHaveLength(2);
    expect(first.body.childCount).toBe(4);
    const next = await t.get(`${ADMIN.tree}?depth=1&limit=2&offset=1`, root.token);
    expect(next.body.children[0].id).toBe(first.body.children[1].id);
    expect(next.body.children[1].id).not.toBe(first.body.children[1].id);
    // At most 2,000 nodes in one answer; what is not shown is still counted.
    const deep = await t.get(`${ADMIN.tree}?depth=10&limit=1000`, root.token);
    let shown = 0;
    const count = (node: Json): void => {
      shown += 1;
      node.children.forEach(count);
    };
    count(deep.body);
    expect(shown).toBe(2000);
    expect(deep.body.descendants).toBeGreaterThan(2000);

    for (const [query, message] of [
      ['limit=0', 'Limit must be a whole number from 1 to 1000.'],
      ['limit=1001', 'Limit must be a whole number from 1 to 1000.'],
      ['limit=x', 'Limit must be a whole number from 1 to 1000.'],
      ['offset=-1', 'Offset must be a whole number from 0.'],
      ['offset=1.5', 'Offset must be a whole number from 0.'],
    ]) {
      const res = await t.get(`${ADMIN.tree}?${query}`, root.token);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toEqual({ data: {}, message, status: 400 });
    }
  });

  it('a search matching more than 10,000 members pages without a total; others still count', async () => {
    // 8,000 more whose emails hold "common": 10,499 in all (member 10 was deleted above).
    const more = members(8000, seeded[0]!.id, 'more').map((m) => ({
      ...m,
      email: m.email.replace(/^(rare|m)/, 'x'),
    }));
    await withDatabase(t, async (d) => {
      const { password_hash } = await d
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', root.id)
        .executeTakeFirstOrThrow();
      await insert(d, more, password_hash);
    });
    for (const query of [
      'q=common',
      'q=COMMON&status=disabled',
      'q=e.org',
      'q=le.org&sort=email',
    ]) {
      const first = await list(`${query}&perPage=5`);
      expect(first.status, query).toBe(200);
      expect(first.body, query).toMatchObject({
        page: 1,
        perPage: 5,
        totalItems: -1,
        totalPages: -1,
      });
      expect(first.body.items, query).toHaveLength(5);
      const second = await list(`${query}&perPage=5&page=2&skipTotal=1`);
      const seen = new Set(first.body.items.map((m: Json) => m.id));
      expect(
        second.body.items.filter((m: Json) => seen.has(m.id)),
        query,
      ).toEqual([]);
    }
    // The rest count as before: few matches, and no q at all.
    const rare = seeded.filter((m) => m.email.includes('rare')).length;
    expect((await list('q=rare&perPage=1')).body.totalItems).toBe(rare);
    expect((await list('perPage=1')).body.totalItems).toBe(COUNT + 8000);
  }, 60_000);
});

describe.each(DATABASES)('upgrading a database with members to 0010 on %s', (db) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('the totals, the search and the tree are right for the members already there', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gh-upgrade-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let databaseUrl: string | undefined;
    if (db === 'postgres') {
      const created = await createPgDatabase();
      cleanups.push(created.drop);
      databaseUrl = created.url;
    }
    // The database as the previous version left it, with an initial user and 300 members, three
    // of them invited by an account deleted before the upgrade.
    const old = openDatabase({ dataDir, databaseUrl });
    const password = strongPassword();
    const initial: Seeded = {
      id: 'initial00000000',
      email: 'initial@example.org',
      invitedBy: null,
      verified: 1,
      disabled: 0,
    };
    const seeded = members(300, initial.id, 'old');
    const gone = seeded[6]!;
    try {
      await migrateTo(old.db, '0007_operators');
      await insert(old.db, [initial, ...seeded], await hashPassword(password));
      await old.db.deleteFrom('users').where('id', '=', gone.id).execute();
    } finally {
      await old.close();
    }

    const t = await startTestServer({
      db,
      databaseUrl,
      env: { DATA_DIR: dataDir },
    });
    cleanups.push(() => t.close());
    const token = await t.tokenFor({ email: initial.email, password });
    const all = await t.get(`${ADMIN.members}?perPage=1`, token);
    expect(all.body.totalItems).toBe(300);
    const rare = await t.get(`${ADMIN.members}?q=rare`, token);
    expect(rare.body.totalItems).toBe(0);
    const found = await t.get(`${ADMIN.members}?q=m299.`, token);
    expect(found.body.items.map((m: Json) => m.email)).toEqual(['m299.common@example.org']);

    const links: Array<[string, string | null]> = [
      [initial.id, null],
      ...seeded.filter((m) => m !== gone).map((m): [string, string | null] => [m.id, m.invitedBy]),
    ];
    const expected = expectedTree(links, initial.id);
    const tree = await t.get(`${ADMIN.tree}?depth=10&limit=1000`, token);
    expect(tree.body).toMatchObject({ id: initial.id, descendants: 299 });
    const walk = (node: Json): void => {
      expect(node, node.id).toMatchObject(expected(node.id));
      node.children.forEach(walk);
    };
    walk(tree.body);
    const orphans = tree.body.children.filter((n: Json) => n.inviterDeleted);
    expect(orphans.map((n: Json) => n.id)).toEqual([20, 21, 22].map((i) => seeded[i]!.id));
  });
});
