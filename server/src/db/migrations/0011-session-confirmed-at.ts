import type { Kysely, Migration } from 'kysely';
import type { Database } from '../schema.js';

/**
 * "Confirm it's you" (docs/decisions/0046): when the session last proved who is behind it (its
 * sign-in, or a re-authentication). Sessions made before count from their sign-in.
 */
export const sessionConfirmedAt: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('sessions').addColumn('confirmed_at', 'text').execute();
    await (db as Kysely<Database>)
      .updateTable('sessions')
      .set((eb) => ({ confirmed_at: eb.ref('created') }))
      .execute();
  },
};
