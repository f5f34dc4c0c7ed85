import type { Kysely, Migration } from 'kysely';

/**
 * Two-step sign-in and passkeys (docs/decisions/0026): the authenticator seed and lock-out, recovery
 * codes, the second step's `mfaId`s, passkeys and their WebAuthn challenges.
 */
export const twoStep: Migration = {
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
};
