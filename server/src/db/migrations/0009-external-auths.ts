import type { Kysely, Migration } from 'kysely';

/** Sign-in with a provider (docs/decisions/0036): the identities linked to each member. */
export const externalAuths: Migration = {
  async up(db: Kysely<unknown>) {
    // Accounts made with a provider have no password of the member's: a random one is hashed in
    // its place (as PocketBase does) and this says so (docs/decisions/0036).
    await db.schema
      .alterTable('users')
      .addColumn('password_set', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema
      .createTable('external_auths')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('provider_id', 'text', (c) => c.notNull())
      .addColumn('created', 'text', (c) => c.notNull())
      .execute();
    // One member per provider identity, and one identity per provider per member.
    await db.schema
      .createIndex('external_auths_identity')
      .on('external_auths')
      .columns(['provider', 'provider_id'])
      .unique()
      .execute();
    await db.schema
      .createIndex('external_auths_user_provider')
      .on('external_auths')
      .columns(['user_id', 'provider'])
      .unique()
      .execute();
  },
};
