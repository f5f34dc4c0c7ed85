/**
 * What oidc/ offers the rest of the server, its one public module: the apps operators register and
 * the signing keys' rotation (the CLI's `oidc` commands).
 */
export {
  addApp,
  findApp,
  listApps,
  newAppSecret,
  removeApp,
  updateApp,
  type App,
  type AppInput,
} from './clients.js';
export { rotateKeys, ensureSigningKey, loadKeys, deleteRetiredKeys } from './keys.js';
export { deleteExpiredRecords } from './adapter.js';
export { OIDC_PREFIX } from './provider.js';
