import type { Kysely, Migration } from 'kysely';
import type { Database } from '../schema.js';

/**
 * The signing secret now lives outside the database (DATA_DIR/secret.key or TOKEN_SECRET),
 * so that a copy of the database cannot sign tokens. Tokens signed with these end once.
 */
export const tokenSecretsOutOfTheDatabase: Migration = {
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
};
