import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The tables whose rows belong to one member through `user_id`. */
export type OwnedTable = 'passkeys' | 'passkey_challenges' | 'external_auths' | 'recovery_codes';

/** How many rows of `table` are the member's. */
export async function countOwned(db: Db, table: OwnedTable, userId: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Deletes the member's rows of `table`; how many went. */
export async function deleteOwned(db: Db, table: OwnedTable, userId: string): Promise<number> {
  const result = await db.deleteFrom(table).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
