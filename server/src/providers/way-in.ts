import type { WayInKind } from '../core/ways-in.js';

/** Connected providers as a way in (core/ways-in.ts): each signs the member in on its own. */
export const providerWayIn: WayInKind = {
  name: 'providers',
  role: 'way-in',
  async count(db, userId) {
    const row = await db
      .selectFrom('external_auths')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },
  async removeAll(trx, userId) {
    const result = await trx
      .deleteFrom('external_auths')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
