import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Operators and disabled accounts, the console's list and tree indexes, and the mail counts
 * (docs/decisions/0027).
 */
export const operators: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('users')
      .addColumn('is_operator', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('users')
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`UPDATE users SET is_operator = 1 WHERE is_initial_user = 1`.execute(db);
    // The console's members list: newest/oldest first, by email, and each filtered by status
    // (disabled, verified) without sorting a million rows; and the invite tree's parent link.
    await db.schema.createIndex('users_created').on('users').columns(['created', 'id']).execute();
    await db.schema
      .createIndex('users_status_created')
      .on('users')
      .columns(['disabled', 'verified', 'created', 'id'])
      .execute();
    await db.schema
      .createIndex('users_status_email')
      .on('users')
      .columns(['disabled', 'verified', 'email'])
      .execute();
    await db.schema
      .createIndex('users_invited_by')
      .on('users')
      .columns(['invited_by', 'id'])
      .execute();
    await db.schema
      .createIndex('security_events_type')
      .on('security_events')
      .columns(['type', 'created'])
      .execute();
    await db.schema
      .createTable('mail_log')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('created', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('mail_log_created').on('mail_log').column('created').execute();
  },
};
