import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  sql,
  SqliteDialect,
  type SqliteStatement,
} from 'kysely';
import type pg from 'pg';
import { lazyRequire } from '../tools/lazy-require.js';
import { createPrivateFile, ensurePrivateDir, restrictFile } from '../tools/private-files.js';
import type { Database } from './schema.js';

/** The SQLite database's file name inside DATA_DIR. */
export const DATABASE_FILE = 'gatehouse.db';

export type DatabaseKind = 'sqlite' | 'postgres';

/**
 * SQLite: how long a statement waits for another process's write lock while serving requests.
 * The driver is synchronous, so this wait blocks the event loop: keep it short and answer 503
 * (SQLITE_BUSY) instead. Start-up and the CLI wait longer (STARTUP_BUSY_TIMEOUT_MS).
 */
export const REQUEST_BUSY_TIMEOUT_MS = 200;
const STARTUP_BUSY_TIMEOUT_MS = 5000;

/** The readiness check's own limit for its probe. */
const READY_TIMEOUT_MS = 1000;

export interface DatabaseEvents {
  /** A pooled PostgreSQL connection was lost (it is replaced on next use). */
  onConnectionError?: (error: Error) => void;
  /**
   * A ROLLBACK after a failed statement failed too. The statement's own error is the one thrown
   * (and logged by whoever catches it); this reports the rollback's.
   */
  onRollbackError?: (error: unknown) => void;
}

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
  /** Counts the write and commit statements run by this process (every pooled connection). */
  writes?: WriteCounter;
  /**
   * PostgreSQL only: the same pool, for the tables no read cache holds (the request log's `logs`,
   * logs/store.ts), whose writes are not counted in `writes`: writing a second's requests must not
   * empty the hot-path reads' cache (db/prepared.ts). On SQLite those tables are in a file of
   * their own, auxiliary.db.
   */
  auxiliary?: Kysely<Database>;
  /**
   * Readiness: true when the database answers within a second (PostgreSQL: `SELECT 1`; SQLite:
   * the write lock can be taken, since a write lock held elsewhere makes every write fail).
   */
  ready(): Promise<boolean>;
  /** SQLite: from now on wait at most REQUEST_BUSY_TIMEOUT_MS for a lock (after start-up). */
  serveRequests(): void;
  close(): Promise<void>;
}

export interface WriteCounter {
  count: number;
}

/** SQLite in DATA_DIR by default; PostgreSQL when DATABASE_URL is set. */
export function openDatabase(
  options: { dataDir: string; databaseUrl: string | undefined; databaseTimeoutMs?: number },
  events: DatabaseEvents = {},
): DatabaseHandle {
  const onRollbackError = events.onRollbackError ?? (() => {});
  if (options.databaseUrl) {
    const timeout = options.databaseTimeoutMs ?? 5000;
    const { Pool } = lazyRequire<typeof pg>('pg');
    const pool = new Pool({
      connectionString: options.databaseUrl,
      max: 10,
      // Never wait for ever: for a connection, for the server to answer, for a statement to run.
      // The client-side limit is a second longer so that PostgreSQL cancels a slow statement
      // itself first (the connection then stays usable).
      connectionTimeoutMillis: timeout,
      query_timeout: timeout + 1000,
      statement_timeout: timeout,
    });
    // PostgreSQL ending a connection (restart, failover, proxy timeout) is an 'error' event on the
    // client, and unhandled it would kill the process, whether the client is idle or in use (its
    // query then fails on its own). Every client gets a listener; the pool's own report of the
    // same event for idle clients needs one too. Broken clients are dropped and replaced.
    const onConnectionError = events.onConnectionError ?? (() => {});
    pool.on('connect', (client) => client.on('error', onConnectionError));
    pool.on('error', () => {});
    const writes: WriteCounter = { count: 0 };
    const kysely = (counter: WriteCounter | undefined) =>
      new Kysely<Database>({
        dialect: new (class extends PostgresDialect {
          override createDriver(): Driver {
            return keepFirstError(super.createDriver(), () => true, onRollbackError);
          }
        })({ pool: dropBrokenClients(pool, counter) }),
      });
    const db = kysely(writes);
    const url = new URL(options.databaseUrl);
    return {
      db,
      kind: 'postgres',
      location: `postgres://${url.host}${url.pathname}`,
      writes,
      auxiliary: kysely(undefined),
      ready: () => withinTime(sql`select 1`.execute(db), READY_TIMEOUT_MS),
      serveRequests: () => {},
      close: () => db.destroy(),
    };
  }

  ensurePrivateDir(options.dataDir);
  const file = path.join(options.dataDir, DATABASE_FILE);
  // Created 0600 before SQLite opens it; its -wal and -shm files then get the same mode.
  createPrivateFile(file);
  const sqlite = new SQLite(file);
  // WAL: readers never block the writer; NORMAL sync is durable across process crashes in WAL mode.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Temporary b-trees (a trigger's recursive view, sorts) in memory: on disk each one opened a
  // temporary file, ~8 ms per insert into `users` (docs/decisions/0031).
  sqlite.pragma('temp_store = MEMORY');
  sqlite.pragma(`busy_timeout = ${STARTUP_BUSY_TIMEOUT_MS}`);
  // Files left by an older version were made with the umask's mode.
  for (const suffix of ['-wal', '-shm']) restrictFile(file + suffix);
  const writes: WriteCounter = { count: 0 };
  const db = new Kysely<Database>({
    dialect: new (class extends SqliteDialect {
      override createDriver(): Driver {
        return keepFirstError(super.createDriver(), () => sqlite.inTransaction, onRollbackError);
      }
    })({ database: withStatementCache(sqlite, writes) }),
  });
  const reader = new SQLite(file, { readonly: true });
  reader.pragma(`busy_timeout = ${STARTUP_BUSY_TIMEOUT_MS}`);
  reader.pragma('temp_store = MEMORY');
  return {
    db,
    kind: 'sqlite',
    location: file,
    reader,
    writes,
    ready: () =>
      withinTime(
        // Through Kysely's connection queue, so never inside a transaction under way.
        db.connection().execute(async (connection) => {
          await sql`begin immediate`.execute(connection);
          await sql`rollback`.execute(connection);
        }),
        READY_TIMEOUT_MS,
      ),
    serveRequests: () => {
      sqlite.pragma(`busy_timeout = ${REQUEST_BUSY_TIMEOUT_MS}`);
      reader.pragma(`busy_timeout = ${REQUEST_BUSY_TIMEOUT_MS}`);
    },
    close: async () => {
      reader.close();
      await db.destroy();
    },
  };
}

/** Which database `db` talks to, for the few queries written per database (migration 0010). */
export function databaseKind(db: Kysely<Database>): DatabaseKind {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** True when `work` succeeds within `ms`; false when it fails or takes longer. */
async function withinTime(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Kysely answers a failed transaction with ROLLBACK and, when that fails too, throws the
 * rollback's error instead of the first one: a full disk (SQLITE_FULL, which makes SQLite roll
 * back by itself) was logged only as "cannot rollback - no transaction is active". Here the
 * rollback is skipped when the database has already ended the transaction, and a rollback that
 * fails is reported to `onRollbackError` without replacing the error Kysely then rethrows.
 */
function keepFirstError(
  driver: Driver,
  inTransaction: () => boolean,
  onRollbackError: (error: unknown) => void,
): Driver {
  const rollback = driver.rollbackTransaction.bind(driver);
  driver.rollbackTransaction = async (connection) => {
    if (!inTransaction()) return;
    try {
      await rollback(connection);
    } catch (error) {
      onRollbackError(error);
    }
  };
  return driver;
}

/**
 * A client whose query failed without an answer from PostgreSQL (a time-out, a lost connection)
 * may still be waiting for that answer: it is not reused. Its further queries (Kysely's ROLLBACK)
 * fail at once with the same error, and on release the pool closes it and opens a new one.
 */
function dropBrokenClients(pool: pg.Pool, writes: WriteCounter | undefined): PostgresPool {
  return {
    connect: async (): Promise<PostgresPoolClient> => {
      const client = await pool.connect();
      let broken: Error | undefined;
      const query = (...args: unknown[]): unknown => {
        if (broken) return Promise.reject(broken);
        const result = (client.query as (...a: unknown[]) => unknown)(...args);
        if (!(result instanceof Promise)) return result;
        // Anything but a plain read may have changed rows the read cache holds (db/prepared.ts):
        // counted once it has run, whatever its outcome, unless it changed no row (a poll's
        // UPDATE or DELETE that found nothing: the mail worker's, a job's claim).
        const text = typeof args[0] === 'string' ? args[0] : '';
        const reads = /^\s*select\b/i.test(text);
        const counted =
          reads || !writes
            ? result
            : result.then(
                (done: unknown) => {
                  if (!changedNothing(done)) writes.count += 1;
                  return done;
                },
                (error: unknown) => {
                  writes.count += 1;
                  throw error;
                },
              );
        return counted.catch((error: unknown) => {
          if (!(error instanceof lazyRequire<typeof pg>('pg').DatabaseError))
            broken = error as Error;
          throw error;
        });
      };
      return { query, release: () => client.release(broken) } as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
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
  // Counted once run, whatever the outcome, unless it changed no row (a poll's UPDATE or DELETE
  // that found nothing moves no cache: on SQLite it also writes no page).
  const after = <T>(run: () => T, changed: (result: T) => boolean): T => {
    let result: T;
    try {
      result = run();
    } catch (error) {
      writes.count += 1;
      throw error;
    }
    if (endsTransaction || changed(result)) writes.count += 1;
    return result;
  };
  return {
    reader: statement.reader,
    all: (parameters) =>
      after(
        () => statement.all(parameters),
        (rows) => rows.length > 0,
      ),
    run: (parameters) =>
      after(
        () => statement.run(parameters),
        (info) => info.changes > 0,
      ),
    iterate: (parameters) =>
      after(
        () => statement.iterate(parameters),
        () => true,
      ),
  };
}

/** A PostgreSQL INSERT, UPDATE or DELETE that changed no row. */
function changedNothing(result: unknown): boolean {
  const { command, rowCount } = (result ?? {}) as { command?: string; rowCount?: number | null };
  return (command === 'UPDATE' || command === 'DELETE' || command === 'INSERT') && rowCount === 0;
}

/**
 * True when the error says the database cannot answer now, but may soon: SQLite's write lock is
 * held by another process (SQLITE_BUSY after REQUEST_BUSY_TIMEOUT_MS), or PostgreSQL did not
 * answer in time, refused connections or is shutting down.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('SQLITE_BUSY')) return true;
    // PostgreSQL: statement_timeout, shutting down, starting, too many connections, connection.
    if (['57014', '57P01', '57P02', '57P03', '53300'].includes(code) || code.startsWith('08')) {
      return true;
    }
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE'].includes(code)) {
      return true;
    }
  }
  const message = (error as { message?: unknown }).message;
  return (
    typeof message === 'string' &&
    /^(Query read timeout|timeout exceeded when trying to connect|Connection terminated)/.test(
      message,
    )
  );
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
