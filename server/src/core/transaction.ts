import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { AppContext } from './context.js';
import type { PublishedEvent } from './events.js';

/**
 * A change in one transaction, and what it tells others only once it has committed: events for
 * the other instances and realtime (core/events.ts: listeners may read the database and must see
 * the change), and the mail worker's wake-up. Rolled back, it tells nobody anything.
 */
export interface Work {
  trx: Transaction<Database>;
  /** Publishes `event` after the commit. */
  publish(event: PublishedEvent): void;
  /** Wakes the mail worker after the commit (the work queued mail). */
  mailQueued(): void;
}

export async function inTransaction<T>(
  ctx: AppContext,
  change: (work: Work) => Promise<T>,
): Promise<T> {
  const events: PublishedEvent[] = [];
  let mail = false;
  const result = await ctx.db.transaction().execute((trx) =>
    change({
      trx,
      publish: (event) => events.push(event),
      mailQueued: () => (mail = true),
    }),
  );
  if (mail) ctx.mailQueued();
  for (const event of events) ctx.events.publish(event);
  return result;
}
