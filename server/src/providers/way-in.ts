import type { WayInKind } from '../core/ways-in.js';
import { countOwned, deleteOwned } from '../db/owned.js';

/** Connected providers as a way in (core/ways-in.ts): each signs the member in on its own. */
export const providerWayIn: WayInKind = {
  name: 'providers',
  role: 'way-in',
  count: (db, userId) => countOwned(db, 'external_auths', userId),
  removeAll: (trx, userId) => deleteOwned(trx, 'external_auths', userId),
};
