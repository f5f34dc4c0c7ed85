import type { Compilable } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { DatabaseHandle, WriteCounter } from './connect.js';
import type { Session, User } from './schema.js';

/**
 * The reads done on every authenticated request (the token's user and session), compiled by Kysely once (its builder and
 * compiler cost more than SQLite running a small indexed query). Compiled SQL is parameterised
 * and dialect-specific, so this stays portable across databases.
 *
 * On SQLite they run synchronously on the read-only connection and their results are kept in
 * memory until the database changes: after any write or commit on the server's own connection,
 * and whenever `PRAGMA data_version` says another connection or process committed
 * (docs/decisions/0008-hot-path-queries.md). On PostgreSQL, where other instances write too,
 * every call asks the database.
 */

const MAX_CACHED = 10_000;

/**
 * Numbers the states of the database the cache may hold (a new generation per change): after any
 * write or commit on the server's own connection, and whenever `PRAGMA data_version` on the read
 * connection says another connection or process committed. That pragma costs two locking
 * syscalls, so it is asked once per turn of the event loop; a request in the same turn as another
 * process's commit is concurrent with it and may see the state just before it.
 */
class CommitWatch {
  private readonly statement: SQLite.Statement<[], number>;
  private version: number;
  private writesSeen: number;
  private askedThisTurn = false;
  generation = 0;

  constructor(
    reader: SQLite.Database,
    private readonly writes: WriteCounter,
  ) {
    this.statement = reader.prepare<[], number>('PRAGMA data_version').pluck();
    this.version = this.statement.get()!;
    this.writesSeen = writes.count;
  }

  current(): number {
    if (this.writes.count !== this.writesSeen) {
      this.writesSeen = this.writes.count;
      this.generation += 1;
    }
    if (!this.askedThisTurn) {
      this.askedThisTurn = true;
      setImmediate(() => (this.askedThisTurn = false)).unref();
      const version = this.statement.get()!;
      if (version !== this.version) {
        this.version = version;
        this.generation += 1;
      }
    }
    return this.generation;
  }
}

type Read<Row> = (arg: string) => readonly Row[] | Promise<readonly Row[]>;

function prepare<Row>(
  { db, reader }: DatabaseHandle,
  watch: CommitWatch | undefined,
  build: (arg: string) => Compilable<Row>,
): Read<Row> {
  const slot = '\u0000arg';
  const compiled = build(slot).compile();
  const bind = (arg: string) => compiled.parameters.map((p) => (p === slot ? arg : p));
  if (!reader || !watch) {
    return async (arg) => (await db.executeQuery<Row>({ ...compiled, parameters: bind(arg) })).rows;
  }
  const statement = reader.prepare(compiled.sql);
  const cache = new Map<string, readonly Row[]>();
  let generation = watch.generation;
  return (arg) => {
    const now = watch.current();
    if (now !== generation) {
      cache.clear();
      generation = now;
    }
    let rows = cache.get(arg);
    if (!rows) {
      rows = Object.freeze((statement.all(bind(arg)) as Row[]).map((r) => Object.freeze(r)));
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(arg, rows);
    }
    return rows;
  };
}

/** The hot-path reads, compiled once per database handle. */
export function preparedQueries(handle: DatabaseHandle) {
  const { db, reader, writes } = handle;
  const watch = reader && writes ? new CommitWatch(reader, writes) : undefined;
  const userById = prepare(handle, watch, (id) =>
    db.selectFrom('users').selectAll().where('id', '=', id),
  );
  const unusedCodes = prepare(handle, watch, (ownerId) =>
    db
      .selectFrom('invite_codes')
      .select(['id', 'code', 'created'])
      .where('owner_id', '=', ownerId)
      .where('used_at', 'is', null)
      .orderBy('created', 'desc')
      .orderBy('id'),
  );
  const sessionById = prepare(handle, watch, (id) =>
    db.selectFrom('sessions').selectAll().where('id', '=', id),
  );
  return {
    userById: async (id: string): Promise<User | undefined> => (await userById(id))[0],
    sessionById: async (id: string): Promise<Session | undefined> => (await sessionById(id))[0],
    unusedCodes,
  };
}

export type PreparedQueries = ReturnType<typeof preparedQueries>;
