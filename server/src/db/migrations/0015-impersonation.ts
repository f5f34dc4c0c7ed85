import type { Kysely, Migration } from 'kysely';

/**
 * Viewing as a member (docs/decisions/0056): an operator's short session on a member's account is
 * one of the member's sessions marked with the operator's id. Deleting the operator's account ends
 * it (the foreign key); the partial index keeps that delete, and ending an operator's views when
 * they are disabled, from reading every session.
 */
export const impersonation: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('sessions')
      .addColumn('impersonated_by', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .execute();
    await db.schema
      .createIndex('sessions_impersonated_by')
      .on('sessions')
      .column('impersonated_by')
      .where('impersonated_by', 'is not', null)
      .execute();
  },
};
