import type { Compilable, Kysely } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { DatabaseHandle, WriteCounter } from './connect.js';
import type { Database, Session, User } from './schema.js';
import { andThen, type Maybe } from '../tools/maybe.js';

/**
 * The reads done on every authenticated request (the token's user and session), compiled by Kysely once (its builder and
 * compiler cost more than SQLite running a small indexed query). Compiled SQL is parameterised
 * and dialect-specific, so this stays portable across databases.
 *
 * On SQLite they run synchronously on the read-only connection and their results are kept in
 * memory until the database changes: after any write or commit on the server's own connection,
 * and whenever `PRAGMA data_version` says another connection or process committed
 * (docs/decisions/0008-hot-path-queries.md). On PostgreSQL, where other instances write too, the
 * server keeps them for at most a second and drops them sooner when an event says they changed
 * (SharedCache below, docs/decisions/0039).
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

type Read<Row> = (arg: string) => Maybe<readonly Row[]>;

const first = <Row>(rows: readonly Row[]): Row | undefined => rows[0];

/**
 * PostgreSQL: what another instance (or the CLI) commits reaches this one as an event on the
 * channel between instances (core/events.ts; database triggers send them), and `forget` drops the
 * entries it names within milliseconds. Whatever happens to the channel, no entry is served
 * older than `maxAgeMs()` (a second: the staleness bound, docs/decisions/0039). Any write by this
 * process drops everything, as on SQLite, so a handler never reads its own write stale.
 */
class SharedCache<Row> {
  private readonly entries = new Map<string, { rows: readonly Row[]; at: number }>();
  private writesSeen: number;
  /** Moves on every forget: a read that started before one does not store what it read. */
  epoch = 0;

  constructor(
    private readonly writes: WriteCounter,
    private readonly maxAgeMs: () => number,
  ) {
    this.writesSeen = writes.count;
  }

  get(arg: string): readonly Row[] | undefined {
    if (this.writes.count !== this.writesSeen) {
      this.writesSeen = this.writes.count;
      this.clear();
      return undefined;
    }
    const entry = this.entries.get(arg);
    if (!entry) return undefined;
    if (Date.now() - entry.at > this.maxAgeMs()) {
      this.entries.delete(arg);
      return undefined;
    }
    return entry.rows;
  }

  /** Where things stand before a read: `set` stores its rows only if nothing moved meanwhile. */
  mark(): { epoch: number; writes: number } {
    return { epoch: this.epoch, writes: this.writes.count };
  }

  set(arg: string, rows: readonly Row[], before: { epoch: number; writes: number }): void {
    if (before.epoch !== this.epoch || before.writes !== this.writes.count) return;
    if (this.entries.size >= MAX_CACHED) this.entries.clear();
    this.entries.set(arg, { rows, at: Date.now() });
  }

  forget(match: (arg: string, rows: readonly Row[]) => boolean): void {
    this.epoch += 1;
    for (const [arg, entry] of this.entries) if (match(arg, entry.rows)) this.entries.delete(arg);
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
  }
}

/** Compiles the query once with a placeholder argument; `bind` puts the real one in its place. */
function compileOnce<Row>(build: (arg: string) => Compilable<Row>) {
  const slot = '\u0000arg';
  const compiled = build(slot).compile();
  const bind = (arg: string) => compiled.parameters.map((p) => (p === slot ? arg : p));
  return { compiled, bind };
}

function prepareShared<Row>(
  { db }: DatabaseHandle,
  cache: SharedCache<Row> | undefined,
  build: (arg: string) => Compilable<Row>,
): Read<Row> {
  const { compiled, bind } = compileOnce(build);
  const read = async (arg: string) =>
    (await db.executeQuery<Row>({ ...compiled, parameters: bind(arg) })).rows;
  if (!cache) return read;
  // Reads under way, by argument: the requests that miss together (after a change dropped the
  // entries, 50 at once under load) share one read instead of each asking the database.
  const underWay = new Map<
    string,
    { rows: Promise<readonly Row[]>; epoch: number; writes: number }
  >();
  return async (arg) => {
    const cached = cache.get(arg);
    if (cached) return cached;
    const before = cache.mark();
    const pending = underWay.get(arg);
    // Only a read that began after the last change this instance knows of: it cannot be older.
    if (pending && pending.epoch === before.epoch && pending.writes === before.writes) {
      return pending.rows;
    }
    const rows = read(arg).then((found) => {
      const frozen = Object.freeze(found.map((r) => Object.freeze(r)));
      cache.set(arg, frozen, before);
      return frozen;
    });
    const entry = { rows, ...before };
    underWay.set(arg, entry);
    try {
      return await rows;
    } finally {
      if (underWay.get(arg) === entry) underWay.delete(arg);
    }
  };
}

function prepare<Row>(
  handle: DatabaseHandle,
  watch: CommitWatch | undefined,
  build: (arg: string) => Compilable<Row>,
  shared?: SharedCache<Row>,
): Read<Row> {
  const { reader } = handle;
  if (!reader || !watch) return prepareShared(handle, shared, build);
  const { compiled, bind } = compileOnce(build);
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

/** The hot-path reads' queries, built on `db` (the database, or a transaction: queriesIn). */
const reads = {
  userById: (db: Kysely<Database>, id: string) =>
    db.selectFrom('users').selectAll().where('id', '=', id),
  unusedCodes: (db: Kysely<Database>, ownerId: string) =>
    db
      .selectFrom('invite_codes')
      .select(['id', 'code', 'created'])
      .where('owner_id', '=', ownerId)
      .where('used_at', 'is', null)
      .orderBy('created', 'desc')
      .orderBy('id'),
  sessionById: (db: Kysely<Database>, id: string) =>
    db.selectFrom('sessions').selectAll().where('id', '=', id),
};

export interface SharedCacheOptions {
  /** How long an entry may be served (PostgreSQL): see SharedCache. */
  maxAgeMs: () => number;
}

/**
 * The hot-path reads, compiled once per database handle. On PostgreSQL they are cached only when
 * `shared` says for how long (the server, which forgets entries on the events between instances);
 * without it (the CLI, tests) every call asks the database.
 */
export function preparedQueries(handle: DatabaseHandle, shared?: SharedCacheOptions) {
  const { db, reader, writes } = handle;
  const watch = reader && writes ? new CommitWatch(reader, writes) : undefined;
  const cacheOf = <Row>() =>
    !reader && writes && shared ? new SharedCache<Row>(writes, shared.maxAgeMs) : undefined;
  const users = cacheOf<User>();
  const codes = cacheOf<{ id: string; code: string; created: string }>();
  const sessions = cacheOf<Session>();
  const userById = prepare(handle, watch, (id) => reads.userById(db, id), users);
  const unusedCodes = prepare(handle, watch, (owner) => reads.unusedCodes(db, owner), codes);
  const sessionById = prepare(handle, watch, (id) => reads.sessionById(db, id), sessions);
  return {
    /** PostgreSQL: drops what the cache holds about a member (their row, codes, sessions). */
    forgetUser(userId: string): void {
      users?.forget((id) => id === userId);
      codes?.forget((ownerId) => ownerId === userId);
      sessions?.forget((_, rows) => rows[0]?.user_id === userId);
    },
    /** PostgreSQL: drops one session (or all of the member's when `sessionId` is null). */
    forgetSession(userId: string, sessionId: string | null): void {
      sessions?.forget((id, rows) => (sessionId ? id === sessionId : rows[0]?.user_id === userId));
    },
    /** PostgreSQL: drops everything (events may have been missed). */
    forgetAll(): void {
      for (const cache of [users, codes, sessions]) cache?.clear();
    },
    userById: (id: string): Maybe<User | undefined> => andThen(userById(id), first),
    sessionById: (id: string): Maybe<Session | undefined> => andThen(sessionById(id), first),
    unusedCodes,
  };
}

export type PreparedQueries = ReturnType<typeof preparedQueries>;

/**
 * The same reads inside a transaction under way (core/one-transaction.ts): each asks `db` (the
 * transaction) every time, so it sees what the transaction wrote before it commits; nothing is
 * cached, and there is nothing to forget.
 */
export function queriesIn(db: Kysely<Database>): PreparedQueries {
  return {
    forgetUser: () => {},
    forgetSession: () => {},
    forgetAll: () => {},
    userById: (id) => reads.userById(db, id).executeTakeFirst(),
    sessionById: (id) => reads.sessionById(db, id).executeTakeFirst(),
    unusedCodes: (ownerId) => reads.unusedCodes(db, ownerId).execute(),
  };
}
