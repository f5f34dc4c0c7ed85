import type * as C from '../../../contract/accounts.js';
import type { UserRecord } from '../../../contract/records.js';
import type { AppContext, Client } from '../core/context.js';
import { NotFoundError } from '../core/errors.js';
import { assertFresh, notWhileViewingAs } from '../core/reauth.js';
import { type Auth, findUserById, userRecord } from '../core/users.js';
import type { UploadedFile } from '../http/multipart.js';
import type { Static } from 'typebox';
import type { Maybe } from '../tools/maybe.js';
import { updateOwnRecord } from './change-password.js';
import { deleteAccount } from './delete-account.js';
import { signUp } from './sign-up.js';

/**
 * The users collection's record actions, PocketBase's create, update and delete, each with every
 * check its route makes (who may, the fresh session, the fields, the limits): the routes
 * (accounts/routes.ts) and the requests of a batch (batch/, docs/decisions/0055) run these, and
 * nothing else, so a request in a batch is refused exactly as it would be alone.
 */

/** The header that carries a fresh token after a password change (the SDK ignores it). */
export const TOKEN_HEADER = 'x-gatehouse-token';

/** Who asks: their auth (read when the action needs it) and where from. */
export interface RecordCaller {
  auth(): Maybe<Auth | undefined>;
  client: Client;
}

export type CreateRecordBody = Static<typeof C.signUp.body>;
export type UpdateRecordBody = Static<typeof C.updateRecord.body>;

/** The fields PocketBase clears when sent as `null` (every other `null` field is unset). */
export const CLEARED_BY_NULL = ['name', 'avatar'] as const;

/** Reads `null` as '' for CLEARED_BY_NULL, before the update's schema drops other nulls. */
export function clearNullFields(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const fields = body as Record<string, unknown>;
  for (const field of CLEARED_BY_NULL) if (fields[field] === null) fields[field] = '';
}

/** Sign-up: POST /api/collections/users/records. The new member as others see them. */
export async function createUserRecord(
  ctx: AppContext,
  body: CreateRecordBody,
  caller: RecordCaller,
): Promise<UserRecord> {
  const user = await signUp(ctx, body, caller.client);
  return userRecord(user, { withEmail: false });
}

/** The caller's own record; anyone else's, or a guest's request, is a 404. */
async function ownRecord(caller: RecordCaller, id: string): Promise<Auth> {
  const auth = await caller.auth();
  if (!auth || auth.user.id !== id) throw new NotFoundError();
  return auth;
}

/**
 * PATCH /api/collections/users/records/{id}: the member's own name, avatar (an uploaded file),
 * emailVisibility or password (accounts/change-password.ts). With a new password, `token` is this
 * session's fresh token (the old one no longer verifies).
 */
export async function updateUserRecord(
  ctx: AppContext,
  id: string,
  body: UpdateRecordBody,
  avatar: UploadedFile | undefined,
  caller: RecordCaller,
): Promise<{ record: UserRecord; token?: string }> {
  const auth = await ownRecord(caller, id);
  // The password is the member's own: an operator viewing as them cannot change it.
  const { password, oldPassword, passwordConfirm } = body;
  if (password || oldPassword || passwordConfirm) notWhileViewingAs(auth);
  const input = { ...body, avatarUpload: avatar };
  const { user, token } = await updateOwnRecord(ctx, auth, input, caller.client);
  return { record: userRecord(user, { withEmail: true }), ...(token ? { token } : {}) };
}

/** DELETE /api/collections/users/records/{id}: the member's own account, on a fresh session. */
export async function deleteUserRecord(
  ctx: AppContext,
  id: string,
  caller: RecordCaller,
): Promise<void> {
  const { user } = assertFresh(ctx, await ownRecord(caller, id));
  await deleteAccount(ctx, user.id, caller.client);
}

/** Whether a member has this id (PocketBase's upsert updates it then, else creates one). */
export async function userRecordExists(ctx: AppContext, id: string): Promise<boolean> {
  return (await findUserById(ctx, id)) !== undefined;
}
