import type { Kysely, Migration } from 'kysely';

/**
 * Mail whose link has expired is not sent (docs/decisions/0019): what kind of mail a row is,
 * when its link dies, and when the worker gave up on it (kept a while for the operator).
 */
export const outboxExpiry: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('outbox').addColumn('kind', 'text').execute();
    await db.schema.alterTable('outbox').addColumn('expires_at', 'text').execute();
    await db.schema.alterTable('outbox').addColumn('expired_at', 'text').execute();
    await db.schema.createIndex('outbox_expires').on('outbox').column('expires_at').execute();
  },
};
