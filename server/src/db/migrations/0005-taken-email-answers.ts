import type { Kysely, Migration } from 'kysely';

/**
 * Each time sign-up told a code's holder "this email has an account" (docs/decisions/0019).
 */
export const takenEmailAnswers: Migration = {
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
};
