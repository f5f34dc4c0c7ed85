import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { SecretBox } from '../core/secret-box.js';
import type { Database } from '../db/schema.js';
import { clientMetadata } from './clients.js';

/**
 * oidc-provider's Adapter on Gatehouse's database (SQLite or PostgreSQL): every record of every
 * model (sessions, interactions, grants, codes, tokens) is a row of `oidc_records`, keyed by model
 * and id, with the columns the provider looks records up by (grant, session uid) and those
 * Gatehouse ends them by (the member, the app). Instances of one database share them all. Clients are the operators' registered apps (`oidc_clients`), read-only here.
 */

type Db = Kysely<Database>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The adapter class oidc-provider instantiates once per model name. */
export function adapterClass(db: Db, box: SecretBox): new (model: string) => Adapter {
  return class KyselyAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (this.model === 'Client') return;
      const row = {
        payload: JSON.stringify(payload),
        grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
        uid: typeof payload.uid === 'string' ? payload.uid : null,
        account_id: typeof payload.accountId === 'string' ? payload.accountId : null,
        client_id: typeof payload.clientId === 'string' ? payload.clientId : null,
        expires_at: expiresIn ? nowSeconds() + expiresIn : null,
      };
      // session_id is only on the links between provider and Gatehouse sessions (oidc/sessions.ts).
      await db
        .insertInto('oidc_records')
        .values({ model: this.model, id, ...row, session_id: null, consumed_at: null })
        .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(row))
        .execute();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') return clientMetadata(db, box, id);
      const row = await db
        .selectFrom('oidc_records')
        .select(['payload', 'consumed_at', 'expires_at'])
        .where('model', '=', this.model)
        .where('id', '=', id)
        .executeTakeFirst();
      return readRow(row);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const row = await db
        .selectFrom('oidc_records')
        .select(['payload', 'consumed_at', 'expires_at'])
        .where('model', '=', this.model)
        .where('uid', '=', uid)
        .executeTakeFirst();
      return readRow(row);
    }

    // The device flow is off: no record has a user code.
    async findByUserCode(): Promise<AdapterPayload | undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await db
        .updateTable('oidc_records')
        .set({ consumed_at: nowSeconds() })
        .where('model', '=', this.model)
        .where('id', '=', id)
        .execute();
    }

    async destroy(id: string): Promise<void> {
      await db
        .deleteFrom('oidc_records')
        .where('model', '=', this.model)
        .where('id', '=', id)
        .execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.deleteFrom('oidc_records').where('grant_id', '=', grantId).execute();
    }
  };
}

function readRow(
  row:
    | { payload: string; consumed_at: number | string | null; expires_at: number | string | null }
    | undefined,
): AdapterPayload | undefined {
  if (!row) return undefined;
  if (row.expires_at !== null && Number(row.expires_at) <= nowSeconds()) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  if (row.consumed_at !== null) payload.consumed = Number(row.consumed_at);
  return payload;
}

/** Deletes the records past their end (housekeeping: the provider refuses them anyway). */
export async function deleteExpiredRecords(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('oidc_records')
    .where('expires_at', '<=', nowSeconds())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
