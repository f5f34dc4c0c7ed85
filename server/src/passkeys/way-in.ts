import type { WayInKind } from '../core/ways-in.js';
import { countOwned, deleteOwned } from '../db/owned.js';

/** Passkeys as a way in (core/ways-in.ts): each signs the member in on its own. */
export const passkeyWayIn: WayInKind = {
  name: 'passkeys',
  role: 'way-in',
  count: (db, userId) => countOwned(db, 'passkeys', userId),
  async removeAll(trx, userId) {
    await deleteOwned(trx, 'passkey_challenges', userId);
    return deleteOwned(trx, 'passkeys', userId);
  },
};
