import { sql, type Kysely, type Migration } from 'kysely';

/** The first schema: members (`users`), invite codes, the mail outbox and settings. */
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('token_key', 'text', (c) => c.notNull())
      .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('email_visibility', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('is_initial_user', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('invite_code', 'text', (c) => c.notNull())
      .addColumn('invited_by', 'text')
      .addColumn('verification_sent_at', 'text')
      .addColumn('reset_sent_at', 'text')
      .addColumn('created', 'text', (c) => c.notNull())
      .addColumn('updated', 'text', (c) => c.notNull())
      .execute();
    // At most one initial user, enforced by the database itself.
    await db.schema
      .createIndex('users_one_initial_user')
      .on('users')
      .column('is_initial_user')
      .unique()
      .where(sql.ref('is_initial_user'), '=', 1)
      .execute();

    await db.schema
      .createTable('invite_codes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('code', 'text', (c) => c.notNull().unique())
      .addColumn('owner_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('bootstrap', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('used_by', 'text')
      .addColumn('used_at', 'text')
      .addColumn('created', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('invite_codes_owner')
      .on('invite_codes')
      .columns(['owner_id', 'used_at'])
      .execute();

    await db.schema
      .createTable('outbox')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('text_body', 'text', (c) => c.notNull())
      .addColumn('html_body', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text', (c) => c.notNull())
      .addColumn('locked_until', 'text')
      .addColumn('last_error', 'text')
      .addColumn('created', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('outbox_due').on('outbox').column('next_attempt_at').execute();

    await db.schema
      .createTable('settings')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  },
};
