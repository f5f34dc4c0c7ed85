import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteStatement } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

/** The SQLite database's file name inside DATA_DIR. */
export const DATABASE_FILE = 'gatehouse.db';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  kind: DatabaseKind;
  /** Where the data lives, for the start-up log (no credentials). */
  location: string;
  /**
   * SQLite only: a second, read-only connection for the hot-path reads (db/prepared.ts). It runs
   * them synchronously, outside Kysely's single-connection queue, and (WAL) sees exactly what is
   * committed: never the uncommitted state of a transaction under way on the main connection.
   */
  reader?: SQLite.Database;
  /** SQLite only: counts the write and commit statements run on the main connection. */
  writes?: WriteCounter;
  close(): Promise<void>;
}

export interface WriteCounter {
  count: number;
}

/** SQLite in DATA_DIR by default; PostgreSQL when DATABASE_URL is set. */
export function openDatabase(
  options: { dataDir: string; databaseUrl: string | undefined },
  onConnectionError: (error: Error) => void = () => {},
): DatabaseHandle {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // PostgreSQL ending a connection (restart, failover, proxy timeout) is an 'error' event on the
    // client, and unhandled it would kill the process, whether the client is idle or in use (its
    // query then fails on its own). Every client gets a listener; the pool's own report of the
    // same event for idle clients needs one too. Broken clients are dropped and replaced.
    pool.on('connect', (client) => client.on('error', onConnectionError));
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const url = new URL(options.databaseUrl);
    return {
      db,
      kind: 'postgres',
      location: `postgres://${url.host}${url.pathname}`,
      close: () => db.destroy(),
    };
  }

  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, DATABASE_FILE);
  const sqlite = new SQLite(file);
  // WAL: readers never block the writer; NORMAL sync is durable across process crashes in WAL mode.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const writes: WriteCounter = { count: 0 };
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite, writes) }),
  });
  const reader = new SQLite(file, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  return {
    db,
    kind: 'sqlite',
    location: file,
    reader,
    writes,
    close: async () => {
      reader.close();
      await db.destroy();
    },
  };
}

/**
 * Kysely prepares every query afresh; preparing costs more than running a small query. The
 * queries are parameterised, so their SQL text is a small fixed set: keep each statement once.
 * Statements that write (or end a transaction) count into `writes` after they run, which tells
 * the read cache (db/prepared.ts) that what it holds may be out of date.
 */
function withStatementCache(sqlite: SQLite.Database, writes: WriteCounter, limit = 500) {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string): SqliteStatement {
      let statement = cache.get(sql);
      if (!statement) {
        statement = counted(sqlite.prepare(sql), sql, writes);
        if (cache.size >= limit) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

function counted(statement: SQLite.Statement, sql: string, writes: WriteCounter): SqliteStatement {
  // SQLite calls COMMIT and friends read-only: they do not write, they publish the writes.
  const endsTransaction = /^\s*(commit|end|rollback|release)\b/i.test(sql);
  if (statement.readonly && !endsTransaction) return statement;
  const after = <T>(run: () => T): T => {
    try {
      return run();
    } finally {
      writes.count += 1;
    }
  };
  return {
    reader: statement.reader,
    all: (parameters) => after(() => statement.all(parameters)),
    run: (parameters) => after(() => statement.run(parameters)),
    iterate: (parameters) => after(() => statement.iterate(parameters)),
  };
}

/** True when the error is a unique-constraint violation, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
