import {
  Body,
  ErrorEnvelope,
  NoContent,
  type RouteSchema,
  SIGNED_IN,
  Text,
  Type,
  type Static,
} from './schema.js';

/**
 * Backups, PocketBase's backups API (server/src/backups/routes.ts): ZIP archives of the whole
 * database in DATA_DIR/backups, for operators (401 to a guest, 403 to a member who is not one).
 * Deleting, uploading, downloading and restoring also need a fresh session (403 "Confirm it's you
 * to continue."); a download is authorized by a file token in its URL.
 */
const tags = ['Backups'];
const operator = { 401: ErrorEnvelope, 403: ErrorEnvelope };

export const BackupFileInfo = Type.Object({
  key: Type.String({ description: 'the file name, e.g. `pb_backup_gatehouse_20261125101500.zip`' }),
  size: Type.Integer({ description: 'bytes' }),
  modified: Type.String({ description: 'UTC, `YYYY-MM-DD hh:mm:ss.sssZ`' }),
});
export type BackupFileInfo = Static<typeof BackupFileInfo>;

const KeyParams = Type.Object({ key: Type.String() });

export const listBackups = {
  summary: 'Every backup, newest first (the SDK’s `pb.backups.getFullList()`)',
  tags,
  security: SIGNED_IN,
  response: { 200: Type.Array(BackupFileInfo), 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;

export const createBackup = {
  summary: 'Make a backup now (the SDK’s `pb.backups.create(name)`)',
  description:
    "`name`: lower-case letters, digits, `_` and `-`, ending `.zip`, up to 150 characters; '' for " +
    '`pb_backup_<app name>_<UTC time>.zip`. Answers once the backup is written.',
  tags,
  security: SIGNED_IN,
  body: Body({ name: Text() }),
  response: { 204: NoContent, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;

export const uploadBackup = {
  summary: 'Add a backup from a ZIP file (the SDK’s `pb.backups.upload({file})`)',
  description:
    'multipart/form-data with the archive in `file`; it keeps its file name, which must be free.',
  tags,
  security: SIGNED_IN,
  consumes: ['multipart/form-data'],
  body: Body({}),
  response: { 204: NoContent, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;

export const downloadBackup = {
  summary: 'Download a backup (the SDK’s `pb.backups.getDownloadURL(token, key)`)',
  description:
    'Authorized by `token`, a file token of an operator (POST /api/files/token) on a fresh session; ' +
    'anything else is 403 "Insufficient permissions to access the resource.".',
  tags,
  params: KeyParams,
  querystring: Type.Object({
    token: Type.Optional(Type.String({ description: 'a file token (POST /api/files/token)' })),
  }),
  response: {
    200: Type.Unsafe<AsyncIterable<Uint8Array>>({
      type: 'string',
      format: 'binary',
      description: 'the ZIP archive (sent as a stream)',
    }),
    403: ErrorEnvelope,
    404: ErrorEnvelope,
  },
} satisfies RouteSchema;

export const deleteBackup = {
  summary: 'Delete a backup (the SDK’s `pb.backups.delete(key)`)',
  tags,
  security: SIGNED_IN,
  params: KeyParams,
  response: { 204: NoContent, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;

export const restoreBackup = {
  summary: 'Replace the database with a backup (the SDK’s `pb.backups.restore(key)`)',
  description:
    'Answers once the data is restored and served: every session has ended (members sign in ' +
    'again), and the database there was is kept in DATA_DIR as before-restore-<time>.',
  tags,
  security: SIGNED_IN,
  params: KeyParams,
  response: { 204: NoContent, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;
