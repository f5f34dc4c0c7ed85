import type { WayInKind } from '../core/ways-in.js';

/** Passkeys as a way in (core/ways-in.ts): each signs the member in on its own. */
export const passkeyWayIn: WayInKind = {
  name: 'passkeys',
  role: 'way-in',
  async count(db, userId) {
    const row = await db
      .selectFrom('passkeys')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },
  async removeAll(trx, userId) {
    const result = await trx
      .deleteFrom('passkeys')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    await trx.deleteFrom('passkey_challenges').where('user_id', '=', userId).execute();
    return Number(result.numDeletedRows);
  },
};
