import type { WayInKind } from '../core/ways-in.js';
import { deleteOwned } from '../db/owned.js';

/**
 * Two-step sign-in as a second step (core/ways-in.ts): 1 while it is on. Removing it takes the
 * seed (on, or only being set up) and the recovery codes.
 */
export const twoStepWayIn: WayInKind = {
  name: 'twoStep',
  role: 'second-step',
  async count(db, userId) {
    const row = await db
      .selectFrom('two_step')
      .select('enabled')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.enabled === 1 ? 1 : 0;
  },
  async removeAll(trx, userId) {
    const on = await trx
      .deleteFrom('two_step')
      .where('user_id', '=', userId)
      .where('enabled', '=', 1)
      .executeTakeFirst();
    await trx.deleteFrom('two_step').where('user_id', '=', userId).execute();
    await deleteOwned(trx, 'recovery_codes', userId);
    return Number(on.numDeletedRows);
  },
};
