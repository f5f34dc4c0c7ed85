import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
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
  close(): Promise<void>;
}

/** SQLite in DATA_DIR by default; PostgreSQL when DATABASE_URL is set. */
export function openDatabase(
  options: { dataDir: string; databaseUrl: string | undefined },
  onIdleError: (error: Error) => void = () => {},
): DatabaseHandle {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // PostgreSQL ending an idle pooled connection (restart, failover, proxy timeout) is reported
    // here; unhandled it would kill the process. The pool replaces the connection on next use.
    pool.on('error', onIdleError);
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
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
  });
  const reader = new SQLite(file, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  return {
    db,
    kind: 'sqlite',
    location: file,
    reader,
    close: async () => {
      reader.close();
      await db.destroy();
    },
  };
}

/**
 * Kysely prepares every query afresh; preparing costs more than running a small query. The
 * queries are parameterised, so their SQL text is a small fixed set: keep each statement once.
 */
function withStatementCache(sqlite: SQLite.Database, limit = 500) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = sqlite.prepare(sql);
        if (cache.size >= limit) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
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
