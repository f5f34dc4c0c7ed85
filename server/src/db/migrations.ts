import type { Database } from './schema.js';
import {
  sql,
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
} from 'kysely';

/**
 * The one set of migrations, for SQLite and PostgreSQL. Kept in code (not files on disk) so the
 * same list runs from TypeScript sources and from the compiled build. Never edit a shipped
 * migration: add the next one.
 */
const migrations: Record<string, Migration> = {
  '0001_initial': {
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
  },
  '0002_sessions_and_security_events': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('last_seen', 'text', (c) => c.notNull())
        .addColumn('expires', 'text', (c) => c.notNull())
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

      await db.schema
        .createTable('security_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text')
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('detail', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('security_events_user')
        .on('security_events')
        .columns(['user_id', 'created'])
        .execute();
      await db.schema
        .createIndex('security_events_created')
        .on('security_events')
        .column('created')
        .execute();
    },
  },
  '0003_token_secrets_out_of_the_database': {
    // The signing secret now lives outside the database (DATA_DIR/secret.key or TOKEN_SECRET),
    // so that a copy of the database cannot sign tokens. Tokens signed with these end once.
    async up(db: Kysely<unknown>) {
      await (db as Kysely<Database>)
        .deleteFrom('settings')
        .where('key', 'in', [
          'token_secret.auth',
          'token_secret.verification',
          'token_secret.passwordReset',
          'token_secret.emailChange',
        ])
        .execute();
    },
  },
  // Mail whose link has expired is not sent (docs/decisions/0019): what kind of mail a row is,
  // when its link dies, and when the worker gave up on it (kept a while for the operator).
  '0004_outbox_expiry': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('outbox').addColumn('kind', 'text').execute();
      await db.schema.alterTable('outbox').addColumn('expires_at', 'text').execute();
      await db.schema.alterTable('outbox').addColumn('expired_at', 'text').execute();
      await db.schema.createIndex('outbox_expires').on('outbox').column('expires_at').execute();
    },
  },
  // Each time sign-up told a code's holder "this email has an account" (docs/decisions/0019).
  '0005_taken_email_answers': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('taken_email_answers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('code_id', 'text', (c) =>
          c.notNull().references('invite_codes.id').onDelete('cascade'),
        )
        .addColumn('owner_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('created', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('taken_email_answers_code')
        .on('taken_email_answers')
        .column('code_id')
        .execute();
      await db.schema
        .createIndex('taken_email_answers_owner')
        .on('taken_email_answers')
        .columns(['owner_id', 'created'])
        .execute();
    },
  },
  '0006_two_step': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('two_step')
        .addColumn('user_id', 'text', (c) =>
          c.primaryKey().references('users.id').onDelete('cascade'),
        )
        .addColumn('secret', 'text')
        .addColumn('pending_secret', 'text')
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_step', 'integer')
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('locked_until', 'text')
        .addColumn('updated', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('recovery_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('code_hash', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .addColumn('created', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('recovery_codes_user')
        .on('recovery_codes')
        .columns(['user_id', 'code_hash'])
        .execute();

      await db.schema
        .createTable('mfa_challenges')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('expires', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('mfa_challenges_expires')
        .on('mfa_challenges')
        .column('expires')
        .execute();

      await db.schema
        .createTable('passkeys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('credential_id', 'text', (c) => c.notNull().unique())
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('transports', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('last_used', 'text')
        .execute();
      await db.schema.createIndex('passkeys_user').on('passkeys').column('user_id').execute();

      await db.schema
        .createTable('passkey_challenges')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('challenge', 'text', (c) => c.notNull().unique())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('expires', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('passkey_challenges_expires')
        .on('passkey_challenges')
        .column('expires')
        .execute();
    },
  },
  '0007_operators': {
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
  },
};

const provider: MigrationProvider = {
  getMigrations: async () => migrations,
};

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  await migrate(db, (migrator) => migrator.migrateToLatest());
}

/** Brings a database exactly to `name` (upgrade tests start from an older schema this way). */
export async function migrateTo(db: Kysely<Database>, name: string): Promise<void> {
  await migrate(db, (migrator) => migrator.migrateTo(name));
}

async function migrate(
  db: Kysely<Database>,
  run: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<void> {
  const migrator = new Migrator({ db: db as unknown as Kysely<unknown>, provider });
  const { error, results } = await run(migrator);
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const name = failed ? ` (${failed.migrationName})` : '';
    throw new Error(`Database migration failed${name}: ${String(error)}`, { cause: error });
  }
}
