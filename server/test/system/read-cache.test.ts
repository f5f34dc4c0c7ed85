import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { openDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrations/index.js';
import { preparedQueries } from '../../src/db/prepared.js';
import { packBatches } from '../../src/logs/entries.js';
import { openLogStore } from '../../src/logs/store.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../support/contract.js';
import { createPgDatabase, startTestServer, type TestServer } from '../support/server.js';

/**
 * On SQLite the per-request reads (the user behind a token, the invite list) are kept in memory
 * until anything commits. A write by another process on the same file (an operator's tool, a
 * restore, a second server) must be seen on the very next request, not served from memory.
 */
describe('hot-path reads on SQLite see writes made outside the server', () => {
  let t: TestServer;
  let outside: SQLite.Database;
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite' });
    outside = new SQLite(path.join(t.dataDir, 'gatehouse.db'));
  });
  afterAll(async () => {
    outside?.close();
    await t?.close();
  });

  it('a token key rotated by another connection ends the session at once', async () => {
    const user = await t.verifiedUser();
    expect((await t.get(PATHS.codes, user.token)).status).toBe(200);
    expect((await t.get(PATHS.codes, user.token)).status).toBe(200);

    outside
      .prepare('UPDATE users SET token_key = ? WHERE id = ?')
      .run('rotated-elsewhere', user.id);

    const after = await t.get(PATHS.codes, user.token);
    expect(after.status).toBe(401);
  });

  it('a session ended by another connection is refused at once', async () => {
    const user = await t.verifiedUser();
    expect((await t.get(PATHS.codes, user.token)).status).toBe(200);
    expect((await t.get(PATHS.codes, user.token)).status).toBe(200);
    outside.prepare('DELETE FROM sessions WHERE user_id = ?').run(user.id);
    expect((await t.get(PATHS.codes, user.token)).status).toBe(401);
  });

  it('an invite code used by another connection leaves the list at once', async () => {
    const user = await t.verifiedUser();
    const before = await t.get(PATHS.codes, user.token);
    expect(before.status).toBe(200);
    const codes = before.body.codes as { id: string }[];
    expect(codes.length).toBeGreaterThan(1);

    outside
      .prepare('UPDATE invite_codes SET used_at = ?, used_by = ? WHERE id = ?')
      .run('2026-01-01 00:00:00.000Z', 'someone', codes[0]!.id);

    const after = await t.get(PATHS.codes, user.token);
    expect((after.body.codes as { id: string }[]).map((c) => c.id)).toEqual(
      codes.slice(1).map((c) => c.id),
    );
  });
});

describe("the read cache and the server's own writes", () => {
  it('a write or a committed transaction is seen by the next read, in the same turn', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-cache-'));
    const database = openDatabase({ dataDir: dir, databaseUrl: undefined });
    try {
      await migrateToLatest(database.db);
      const queries = preparedQueries(database);
      const now = '2026-01-01 00:00:00.000Z';
      await database.db
        .insertInto('users')
        .values({
          id: 'aaaaaaaaaaaaaaa',
          email: 'a@example.com',
          password_hash: 'x',
          token_key: 'key-1',
          verified: 0,
          email_visibility: 0,
          is_initial_user: 0,
          invite_code: 'C',
          invited_by: null,
          verification_sent_at: null,
          reset_sent_at: null,
          created: now,
          updated: now,
        })
        .execute();
      expect((await queries.userById('aaaaaaaaaaaaaaa'))?.token_key).toBe('key-1');

      await database.db
        .updateTable('users')
        .set({ token_key: 'key-2' })
        .where('id', '=', 'aaaaaaaaaaaaaaa')
        .execute();
      expect((await queries.userById('aaaaaaaaaaaaaaa'))?.token_key).toBe('key-2');

      await database.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('users')
          .set({ token_key: 'key-3' })
          .where('id', '=', 'aaaaaaaaaaaaaaa')
          .execute();
        // Inside the transaction the read connection still sees the committed state.
        expect((await queries.userById('aaaaaaaaaaaaaaa'))?.token_key).toBe('key-2');
      });
      expect((await queries.userById('aaaaaaaaaaaaaaa'))?.token_key).toBe('key-3');

      await database.db.deleteFrom('users').execute();
      expect(await queries.userById('aaaaaaaaaaaaaaa')).toBeUndefined();
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A statement that changes no row (the mail worker's poll, a job's claim that found nothing) moves
 * no cache: on SQLite it used to drop every member's cached rows each time the worker polled, on
 * PostgreSQL every entry of the instance.
 */
describe.each(['sqlite', 'postgres'] as const)('writes that change nothing on %s', (kind) => {
  it('count as no write; a write that changes a row, and a commit, still do', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-cache-'));
    const pg = kind === 'postgres' ? await createPgDatabase() : undefined;
    const database = openDatabase({ dataDir: dir, databaseUrl: pg?.url });
    try {
      await migrateToLatest(database.db);
      const writes = database.writes!;
      const before = writes.count;
      await database.db
        .updateTable('outbox')
        .set({ locked_until: null })
        .where('id', '=', 'none')
        .execute();
      await database.db.deleteFrom('sessions').where('id', '=', 'none').execute();
      expect(writes.count).toBe(before);

      const now = '2026-01-01 00:00:00.000Z';
      await database.db
        .insertInto('users')
        .values({
          id: 'bbbbbbbbbbbbbbb',
          email: 'b@example.com',
          password_hash: 'x',
          token_key: 'key-1',
          verified: 0,
          email_visibility: 0,
          is_initial_user: 0,
          invite_code: 'D',
          invited_by: null,
          verification_sent_at: null,
          reset_sent_at: null,
          created: now,
          updated: now,
        })
        .execute();
      expect(writes.count).toBeGreaterThan(before);
      const afterInsert = writes.count;
      await database.db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ verified: 1 }).where('id', '=', 'none').execute();
      });
      // The transaction's COMMIT still counts (its statements may have changed rows).
      expect(writes.count).toBeGreaterThan(afterInsert);
    } finally {
      await database.close();
      await pg?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)("the request log's writes on %s", (kind) => {
  it('leave the read cache alone: they are not counted as writes, and they are kept', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-cache-'));
    const pg = kind === 'postgres' ? await createPgDatabase() : undefined;
    const database = openDatabase({ dataDir: dir, databaseUrl: pg?.url });
    const store = openLogStore({ kind, dataDir: dir, db: database.auxiliary ?? database.db });
    try {
      await migrateToLatest(database.db);
      const writes = database.writes!;
      const before = writes.count;
      const at = Date.parse('2026-01-01T00:00:00.000Z');
      await store.insert(
        packBatches([
          {
            at,
            method: 'GET',
            url: '/api/invite-codes',
            status: 200,
            ms: 0.5,
            ip: '127.0.0.1',
            userAgent: 'test',
            authId: '',
          },
        ]),
      );
      expect(writes.count).toBe(before);
      const rows = await store.db.selectFrom('logs').select(['n', 'first']).execute();
      expect(rows).toEqual([{ n: 1, first: '2026-01-01 00:00:00.000Z' }]);
    } finally {
      await store.close();
      await database.close();
      await pg?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
