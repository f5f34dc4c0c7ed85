import { type Kysely, type KyselyPlugin, sql, type Transaction } from 'kysely';
import { holdFileChanges } from '../db/member-files.js';
import { queriesIn } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { AppContext } from './context.js';
import type { Events, PublishedEvent } from './events.js';

/**
 * Several actions in one database transaction (PocketBase's batch requests: docs/decisions/0055):
 * all of them commit or none does, and each runs the very code it runs alone. The work gets a
 * context of its own whose `db` is the transaction, so every action reaches it the way it reaches
 * the database alone:
 *
 * - `ctx.db` is the transaction, and a transaction an action opens inside it (`inTransaction`,
 *   `ctx.db.transaction()`) becomes a savepoint: rolled back alone when its action's part fails,
 *   released (kept for the commit) when it succeeds;
 * - the hot-path reads (`ctx.queries`: a token's member and session, unused codes) ask the
 *   transaction, so each action sees what the ones before it wrote;
 * - what tells others about a change waits for the commit: events (realtime, other instances'
 *   caches) and the mail worker's wake-up are sent after it, or never if it is rolled back; a
 *   member's file is stored at once but removed only after the commit (db/member-files.ts);
 * - a write that records an attempt (lastingWrite: a failed guess in the security log, an
 *   enumeration counter) is made again after a rollback, so a failing batch leaves the same trace
 *   as the failing request would alone.
 *
 * Past `timeoutMs`, or when `signal` aborts (the client went away), nothing more reaches the
 * transaction: the action under way fails at its next query, the transaction is rolled back, and
 * the call rejects with TransactionEndedError.
 */

/** The transaction was ended before its work was done: past its time limit, or interrupted. */
export class TransactionEndedError extends Error {
  constructor(readonly reason: 'timeout' | 'interrupted') {
    super(reason === 'timeout' ? 'batch transaction timeout' : 'batch request interrupted');
    this.name = 'TransactionEndedError';
  }
}

/** What one transaction of several actions keeps until it ends. */
interface Scope {
  /** The context outside the transaction (the server's). */
  base: AppContext;
  events: PublishedEvent[];
  mail: boolean;
  afterCommit: Array<() => Promise<void>>;
  afterRollback: Array<() => Promise<void>>;
}

/** The contexts made by inOneTransaction, each with its transaction's scope. */
const scopes = new WeakMap<AppContext, Scope>();

export interface OneTransactionOptions {
  /** How long the work may take, from the transaction's start. */
  timeoutMs: number;
  /** Aborted: the client went away; the transaction is rolled back. */
  signal?: AbortSignal;
}

/**
 * Runs `work` with a context whose database is one transaction (see above); commits when it
 * resolves, rolls back when it rejects (with its error), then tells others what the commit
 * changed. Called inside such a context, the work joins the transaction under way.
 */
export async function inOneTransaction<T>(
  ctx: AppContext,
  options: OneTransactionOptions,
  work: (ctx: AppContext) => Promise<T>,
): Promise<T> {
  if (scopes.has(ctx)) return work(ctx);
  const scope: Scope = { base: ctx, events: [], mail: false, afterCommit: [], afterRollback: [] };
  let closed = false;
  let result: T;
  try {
    result = await ctx.db.transaction().execute(async (trx) => {
      const db = joinable(trx.withPlugin(refuseOnceClosed(() => closed)));
      const inner = scopedContext(ctx, db, scope);
      const running = work(inner);
      const ended = endedBy(options);
      try {
        return await Promise.race([running, ended.promise]);
      } catch (error) {
        // The work failed, ran out of time or lost its client: whatever is still under way gets
        // no further query through, and the rollback waits until it has let go of the connection.
        closed = true;
        await running.catch(() => {});
        throw error;
      } finally {
        ended.clear();
        closed = true;
      }
    });
  } catch (error) {
    await runAll(ctx, scope.afterRollback, 'after a rollback');
    throw error;
  }
  if (scope.mail) ctx.mailQueued();
  for (const event of scope.events) ctx.events.publish(event);
  await runAll(ctx, scope.afterCommit, 'after a commit');
  return result;
}

/**
 * A write that records an attempt and must outlast a rolled-back transaction of several actions
 * (a failed guess in the security log, an enumeration counter): `write` runs now with `ctx`; when
 * `ctx` is inOneTransaction's and that transaction is rolled back, it runs again afterwards with
 * the server's context. Alone (any other context), it simply runs.
 */
export async function lastingWrite<T>(
  ctx: AppContext,
  write: (ctx: AppContext) => Promise<T>,
): Promise<T> {
  const result = await write(ctx);
  const scope = scopes.get(ctx);
  if (scope) {
    scope.afterRollback.push(async () => {
      await write(scope.base);
    });
  }
  return result;
}

/** The context the work runs with: the server's, its database the transaction (see above). */
function scopedContext(ctx: AppContext, db: Kysely<Database>, scope: Scope): AppContext {
  const events: Events = {
    get shared() {
      return ctx.events.shared;
    },
    publish: (event) => scope.events.push(event),
    subscribe: (listener) => ctx.events.subscribe(listener),
    close: () => ctx.events.close(),
  };
  holdFileChanges(db, ctx.db, ctx.config.dataDir, {
    afterCommit: (task) => scope.afterCommit.push(task),
    afterRollback: (task) => scope.afterRollback.push(task),
  });
  const inner: AppContext = {
    ...ctx,
    db,
    queries: queriesIn(db),
    events,
    mailQueued: () => {
      scope.mail = true;
    },
  };
  scopes.set(inner, scope);
  return inner;
}

/**
 * The transaction as the actions' `db`: a transaction begun on it (`db.transaction().execute`)
 * is a savepoint of this one. Methods are bound to the transaction itself (Kysely's objects keep
 * their state in private fields, which a proxy cannot reach).
 */
function joinable(trx: Transaction<Database>): Kysely<Database> {
  let savepoints = 0;
  const db: Kysely<Database> = new Proxy(trx, {
    get(target, property) {
      if (property === 'transaction') return savepoint;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  function savepoint() {
    const builder = {
      setIsolationLevel: () => builder,
      setAccessMode: () => builder,
      execute: async <R>(callback: (trx: Transaction<Database>) => Promise<R>): Promise<R> => {
        savepoints += 1;
        const name = sql.id(`gatehouse_${savepoints}`);
        await sql`savepoint ${name}`.execute(trx);
        try {
          const result = await callback(db as Transaction<Database>);
          await sql`release savepoint ${name}`.execute(trx);
          return result;
        } catch (error) {
          // Undoes this part only; a failure here (the transaction is already lost, or ended)
          // leaves the first error to report, and the whole transaction to roll back.
          await sql`rollback to savepoint ${name}`.execute(trx).catch(() => {});
          await sql`release savepoint ${name}`.execute(trx).catch(() => {});
          throw error;
        }
      },
    };
    return builder;
  }
  return db;
}

/** Refuses every query once `closed()`: nothing reaches a transaction that is ending. */
function refuseOnceClosed(closed: () => boolean): KyselyPlugin {
  return {
    transformQuery(args) {
      if (closed()) throw new Error('The transaction has ended: no more queries.');
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
}

/** Rejects past the time limit or when the signal aborts; `clear` stops both. */
function endedBy(options: OneTransactionOptions): { promise: Promise<never>; clear(): void } {
  let reject!: (error: Error) => void;
  const promise = new Promise<never>((_, rejectWith) => (reject = rejectWith));
  promise.catch(() => {});
  const timer = setTimeout(() => reject(new TransactionEndedError('timeout')), options.timeoutMs);
  const onAbort = () => reject(new TransactionEndedError('interrupted'));
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    promise,
    clear: () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** Runs the tasks in order; one that fails is logged and the others still run. */
async function runAll(ctx: AppContext, tasks: Array<() => Promise<void>>, when: string) {
  for (const task of tasks) {
    try {
      await task();
    } catch (error) {
      ctx.log.error({ err: error }, `a task ${when} failed`);
    }
  }
}
