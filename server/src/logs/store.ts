import path from 'node:path';
import SQLite from 'better-sqlite3';
import { type Generated, Kysely, sql, SqliteDialect } from 'kysely';
import type { DatabaseKind } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { createPrivateFile, ensurePrivateDir, restrictFile } from '../tools/private-files.js';

/**
 * Where the request log is kept, apart from the main data as PocketBase keeps its logs: on SQLite
 * a second file, DATA_DIR/auxiliary.db (0600, WAL), so that writing the log never waits for the
 * main database's write lock nor makes it wait, and a copy of the main file does not carry it; on
 * PostgreSQL the `logs` table (migration 0014), which every instance writes and reads, written
 * through a handle whose writes do not empty the read cache (db/connect.ts `auxiliary`).
 *
 * One row holds a batch: the entries one instance wrote at once (a second's requests, never
 * across an hour), packed as JSON (logs/entries.ts), with the first and last entry's time and
 * their number. A row per request cost more CPU than the request itself is allowed to spend on
 * its log (docs/decisions/0053); the API still answers entry by entry, as PocketBase's rows.
 */

/** The file beside the main database. */
export const AUXILIARY_FILE = 'auxiliary.db';

export type LogsDatabase = {
  logs: {
    /** The order of writing (SQLite's rowid; an identity on PostgreSQL). */
    id: Generated<number>;
    /** The first and the last entry's time, PocketBase's date format. */
    first: string;
    last: string;
    n: number;
    /** The entries, packed (logs/entries.ts). */
    entries: string;
  };
};

/** A batch as written. */
export interface Batch {
  first: string;
  last: string;
  n: number;
  entries: string;
}

/** A batch as read back. */
export interface StoredBatch extends Batch {
  id: number;
}

export interface LogStore {
  kind: DatabaseKind;
  /** For reads and deletes; on SQLite a connection to auxiliary.db. */
  db: Kysely<LogsDatabase>;
  /** Writes the batches in one transaction. */
  insert(batches: Batch[]): Promise<void>;
  close(): Promise<void>;
}

export function openLogStore(options: {
  kind: DatabaseKind;
  dataDir: string;
  /** PostgreSQL: the handle whose writes leave the read cache alone (db/connect.ts `auxiliary`). */
  db: Kysely<Database>;
}): LogStore {
  if (options.kind === 'postgres') {
    const db = options.db.withTables<LogsDatabase>() as unknown as Kysely<LogsDatabase>;
    return {
      kind: 'postgres',
      db,
      insert: async (batches) => {
        await db.insertInto('logs').values(batches).execute();
      },
      close: async () => {},
    };
  }
  ensurePrivateDir(options.dataDir);
  const file = path.join(options.dataDir, AUXILIARY_FILE);
  // Created 0600 before SQLite opens it; its -wal and -shm files then get the same mode.
  createPrivateFile(file);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 1000');
  for (const suffix of ['-wal', '-shm']) restrictFile(file + suffix);
  sqlite.exec(`
    CREATE TABLE IF NOT EXISTS logs (
      id INTEGER PRIMARY KEY,
      first TEXT NOT NULL,
      last TEXT NOT NULL,
      n INTEGER NOT NULL,
      entries TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS logs_last ON logs (last);
  `);
  const insert = sqlite.prepare('INSERT INTO logs (first, last, n, entries) VALUES (?, ?, ?, ?)');
  const write = sqlite.transaction((batches: Batch[]) => {
    for (const b of batches) insert.run(b.first, b.last, b.n, b.entries);
  });
  const db = new Kysely<LogsDatabase>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    kind: 'sqlite',
    db,
    insert: async (batches) => {
      write(batches);
    },
    close: async () => {
      await db.destroy();
    },
  };
}

/** Which batches may hold entries created within `from`…`to` (either end open). */
export interface CreatedBounds {
  from?: string;
  to?: string;
}

/** Batches per read while scanning (a few MB of entries at most), and sizes per read. */
const SCAN_BATCHES = 20;
const SCAN_SIZES = 2000;

/**
 * The batches within `bounds`, in the order of writing (`desc`: newest first), a few at a time,
 * yielding to the event loop between reads. Without `entries`, only their ids and sizes.
 */
export async function* scanBatches(
  store: LogStore,
  order: 'asc' | 'desc',
  bounds: CreatedBounds = {},
  entries = true,
): AsyncGenerator<StoredBatch> {
  const limit = entries ? SCAN_BATCHES : SCAN_SIZES;
  let after: number | undefined;
  for (;;) {
    let query = store.db
      .selectFrom('logs')
      .select(entries ? ['id', 'first', 'last', 'n', 'entries'] : ['id', 'first', 'last', 'n'])
      .orderBy('id', order)
      .limit(limit);
    if (bounds.from !== undefined) query = query.where('last', '>=', bounds.from);
    if (bounds.to !== undefined) query = query.where('first', '<=', bounds.to);
    if (after !== undefined) query = query.where('id', order === 'asc' ? '>' : '<', after);
    const rows = (await query.execute()) as Array<
      Omit<StoredBatch, 'entries'> & { entries?: string }
    >;
    for (const row of rows) {
      yield { ...row, id: Number(row.id), n: Number(row.n), entries: row.entries ?? '' };
    }
    if (rows.length < limit) return;
    after = Number(rows.at(-1)!.id);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The batches of the given ids. */
export async function batchesById(store: LogStore, ids: number[]): Promise<StoredBatch[]> {
  if (ids.length === 0) return [];
  const rows = await store.db
    .selectFrom('logs')
    .select(['id', 'first', 'last', 'n', 'entries'])
    .where('id', 'in', ids)
    .execute();
  return rows.map((row) => ({ ...row, id: Number(row.id), n: Number(row.n) }));
}

/** Every entry, counted. */
export async function countEntries(store: LogStore): Promise<number> {
  const row = await store.db
    .selectFrom('logs')
    .select(sql<number>`coalesce(sum(n), 0)`.as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/**
 * Entries per hour, oldest first, as PocketBase's stats answer (`2026-11-25 10:00:00.000Z`). A
 * batch never spans two hours, so its first entry's hour is every entry's.
 */
export async function hourlyCounts(
  store: LogStore,
): Promise<Array<{ date: string; total: number }>> {
  const hour = sql<string>`substr(first, 1, 13) || ':00:00.000Z'`;
  const rows = await store.db
    .selectFrom('logs')
    .select([hour.as('date'), sql<number>`sum(n)`.as('total')])
    .groupBy(hour)
    .orderBy(hour)
    .execute();
  return rows.map((r) => ({ date: r.date, total: Number(r.total) }));
}

/** Batches deleted per statement by the retention job, which yields between them. */
const DELETE_BATCH = 500;

/**
 * Deletes the batches whose last entry was created before `cutoff` (the retention job), a few at
 * a time: on SQLite each statement holds the event loop. The number of entries deleted.
 */
export async function deleteLogsBefore(store: LogStore, cutoff: string): Promise<number> {
  let deleted = 0;
  for (;;) {
    const doomed = await store.db
      .selectFrom('logs')
      .select(['id', 'n'])
      .where('last', '<', cutoff)
      .limit(DELETE_BATCH)
      .execute();
    if (doomed.length === 0) return deleted;
    await store.db
      .deleteFrom('logs')
      .where(
        'id',
        'in',
        doomed.map((r) => r.id),
      )
      .execute();
    deleted += doomed.reduce((sum, r) => sum + Number(r.n), 0);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
