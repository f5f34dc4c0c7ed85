import type { Kysely, Migration } from 'kysely';

/**
 * Gatehouse as an OpenID provider (docs/decisions/0060): the apps operators register, what each
 * member agreed to share with each app, the provider's own records (sessions, grants, codes and
 * tokens, with their end) and its signing keys, sealed with the server's secret (0062). Every
 * instance of one database shares them all.
 */
export const oidc: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('oidc_clients')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      // Sealed (core/secret-box.ts, bound to the client's id); null for a public client.
      .addColumn('secret', 'text')
      // JSON arrays of exact addresses.
      .addColumn('redirect_uris', 'text', (c) => c.notNull())
      .addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull())
      .addColumn('backchannel_logout_uri', 'text')
      // client_secret_basic, client_secret_post, or none (a public client).
      .addColumn('auth_method', 'text', (c) => c.notNull())
      // Who may use it: members (everyone) or operators.
      .addColumn('allowed_group', 'text', (c) => c.notNull())
      .addColumn('created', 'text', (c) => c.notNull())
      .addColumn('updated', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('oidc_consents')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) =>
        c.notNull().references('oidc_clients.id').onDelete('cascade'),
      )
      // The scopes agreed to, space-separated.
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('created', 'text', (c) => c.notNull())
      .addColumn('last_used', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('oidc_consents_pk', ['user_id', 'client_id'])
      .execute();
    await db.schema
      .createIndex('oidc_consents_client')
      .on('oidc_consents')
      .column('client_id')
      .execute();

    // oidc-provider's records (its Adapter): one row per record of each model.
    await db.schema
      .createTable('oidc_records')
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('grant_id', 'text')
      .addColumn('uid', 'text')
      .addColumn('account_id', 'text')
      .addColumn('client_id', 'text')
      // Sessions: the Gatehouse session the member signed in with (ends with it).
      .addColumn('session_id', 'text')
      // Unix seconds; null: no end.
      .addColumn('expires_at', 'bigint')
      .addColumn('consumed_at', 'bigint')
      .addPrimaryKeyConstraint('oidc_records_pk', ['model', 'id'])
      .execute();
    await db.schema
      .createIndex('oidc_records_grant')
      .on('oidc_records')
      .column('grant_id')
      .execute();
    await db.schema
      .createIndex('oidc_records_uid')
      .on('oidc_records')
      .columns(['model', 'uid'])
      .execute();
    await db.schema
      .createIndex('oidc_records_account')
      .on('oidc_records')
      .columns(['account_id', 'model'])
      .execute();
    await db.schema
      .createIndex('oidc_records_expires')
      .on('oidc_records')
      .column('expires_at')
      .execute();

    await db.schema
      .createTable('oidc_keys')
      .addColumn('kid', 'text', (c) => c.primaryKey())
      // The private JWK, sealed (core/secret-box.ts, bound to the kid).
      .addColumn('jwk', 'text', (c) => c.notNull())
      .addColumn('created', 'text', (c) => c.notNull())
      // From then on it signs (the newest such key does).
      .addColumn('active_from', 'text', (c) => c.notNull())
      // Replaced: it signs no more, and leaves the JWKS once what it signed has expired.
      .addColumn('retired_at', 'text')
      .execute();
  },
};
