import { type Kysely, type Migration, PostgresAdapter } from 'kysely';

/**
 * PostgreSQL only: the request log (one row per batch of entries an instance wrote at once,
 * logs/store.ts) and the scheduled jobs' claims, one row per job holding the last scheduled time
 * an instance claimed (core/cron.ts), so that several instances run each scheduled time once. On
 * SQLite the request log lives in a file of its own, DATA_DIR/auxiliary.db (logs/store.ts makes
 * its table), and the one instance claims nothing: this migration changes nothing there.
 */
export const requestLogs: Migration = {
  async up(db: Kysely<unknown>) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    await db.schema
      .createTable('logs')
      .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
      .addColumn('first', 'text', (c) => c.notNull())
      .addColumn('last', 'text', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addColumn('entries', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('logs_last').on('logs').column('last').execute();
    await db.schema
      .createTable('cron_claims')
      .addColumn('job', 'text', (c) => c.primaryKey())
      .addColumn('scheduled', 'text', (c) => c.notNull())
      .execute();
  },
};
