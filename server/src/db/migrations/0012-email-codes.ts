import type { Kysely, Migration } from 'kysely';

/**
 * Sign-in with a code by email (PocketBase's OTP): one row per code sent, keyed by its `otpId`,
 * holding the code only as a keyed digest, the address it went to, the attempts at it and its end.
 * A code goes with its member.
 */
export const emailCodes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('email_codes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created', 'text', (c) => c.notNull())
      .addColumn('expires', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('email_codes_user').on('email_codes').column('user_id').execute();
    await db.schema
      .createIndex('email_codes_expires')
      .on('email_codes')
      .column('expires')
      .execute();
  },
};
