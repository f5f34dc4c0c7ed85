import type { Kysely, Migration } from 'kysely';

/**
 * The member's language (docs/decisions/0072): `en` or `de`, the language every mail to them is
 * written in. Set at sign-up and by the member's record update; an account from before this is
 * English, as every mail was.
 */
export const usersLanguage: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('users')
      .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
      .execute();
  },
};
