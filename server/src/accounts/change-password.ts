import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  type FieldError,
  fieldError,
  type FieldErrors,
} from '../core/errors.js';
import { endSessions, sessionToken } from '../core/sessions.js';
import { lastingWrite } from '../core/one-transaction.js';
import { inTransaction } from '../core/transaction.js';
import { invalidLanguage, isLanguage } from '../core/language.js';
import type { Auth } from '../core/users.js';
import type { User } from '../db/schema.js';
import type { UploadedFile } from '../http/multipart.js';
import { newSecret } from '../tools/random.js';
import { formatDate, nowString } from '../tools/time.js';
import { passwordChangedNotice } from './mails.js';
import { queueNotice } from './notices.js';
import {
  hashPassword,
  isCurrentPassword,
  normalizePassword,
  signUpPasswordError,
} from './passwords.js';
import { countFailure } from './sign-in.js';
import { ACCOUNT_LIMITS } from './limits.js';
import { filesOf, removeOldAvatar } from './avatars.js';
import {
  invalidAvatarName,
  nameError,
  type NewAvatar,
  normalizeName,
  readAvatar,
} from './profile.js';

const UPDATE_FAILED = 'Failed to update record.';

const invalidOldPassword = (): FieldError => ({
  code: 'validation_invalid_old_password',
  message: 'Missing or invalid old password.',
});

export interface RecordUpdateInput {
  oldPassword: string;
  password: string;
  passwordConfirm: string;
  emailVisibility?: boolean;
  /** undefined: unchanged; '' clears it. */
  name?: string;
  /** undefined: unchanged; '' removes the avatar; the current file name keeps it. */
  avatar?: string;
  /** A file sent as `avatar` in a multipart form: the new avatar. */
  avatarUpload?: UploadedFile;
  /** undefined or '': unchanged; else `en` or `de`, the language of the member's mail. */
  language?: string;
}

/** The columns a member changes on their own record, other than the password's. */
type ProfileChanges = Partial<Pick<User, 'email_visibility' | 'name' | 'avatar' | 'language'>>;

/**
 * PocketBase's record update on the member's own record, for the fields a member may change:
 * `name`, `avatar` (a file in a multipart form, or '' to remove it), `emailVisibility`, `language`
 * (the language of their mail), and the password (with `oldPassword`). Every other field is
 * ignored. All fields are checked before anything changes: one field error leaves the record as it
 * was. A new password rotates the tokenKey (outstanding reset and verification links die), ends
 * every other session, queues a notice mail, and returns a fresh token for this device's session.
 */
export async function updateOwnRecord(
  ctx: AppContext,
  auth: Auth,
  input: RecordUpdateInput,
  client: Client,
): Promise<{ user: User; token?: string }> {
  const { user, session } = auth;
  const errors: FieldErrors = {};
  const changes: ProfileChanges = {};
  if (input.emailVisibility !== undefined) changes.email_visibility = input.emailVisibility ? 1 : 0;
  if (input.name !== undefined) {
    const name = normalizeName(input.name);
    const error = nameError(name);
    if (error) errors.name = error;
    else changes.name = name;
  }
  if (input.language) {
    if (!isLanguage(input.language)) errors.language = invalidLanguage(input.language);
    else if (input.language !== user.language) changes.language = input.language;
  }
  let newAvatar: NewAvatar | undefined;
  if (input.avatarUpload) {
    await ctx.limiter.check(ACCOUNT_LIMITS.avatarUpload, user.id);
    const read = await readAvatar(input.avatarUpload);
    if ('code' in read) errors.avatar = read;
    else {
      newAvatar = read;
      changes.avatar = read.name;
    }
  } else if (input.avatar !== undefined && input.avatar !== user.avatar) {
    if (input.avatar === '') changes.avatar = '';
    else errors.avatar = invalidAvatarName(input.avatar);
  }

  const changingPassword =
    input.oldPassword !== '' || input.password !== '' || input.passwordConfirm !== '';
  if (!changingPassword) {
    assertNoFieldErrors(errors, UPDATE_FAILED);
    if (Object.keys(changes).length === 0) return { user };
    const updated = { ...user, ...changes, updated: nowString() };
    await withAvatar(ctx, user, changes, newAvatar, () =>
      ctx.db
        .updateTable('users')
        .set({ ...changes, updated: updated.updated })
        .where('id', '=', user.id)
        .execute(),
    );
    ctx.events.publish({ type: 'user-changed', userId: user.id });
    return { user: updated };
  }

  const password = normalizePassword(input.password);
  if (input.password === '') errors.password = fieldError.required();
  else {
    const context = { appName: ctx.settings.appName, email: user.email };
    const passwordError = signUpPasswordError(password, context);
    if (passwordError) errors.password = passwordError;
  }
  if (input.passwordConfirm === '') errors.passwordConfirm = fieldError.required();
  else if (normalizePassword(input.passwordConfirm) !== password) {
    errors.passwordConfirm = fieldError.mismatch();
  }
  if (input.oldPassword === '') errors.oldPassword = invalidOldPassword();
  else {
    // A guess at the current password counts like a failed sign-in on this account.
    const takeBack = await countFailure(ctx, user.email, client);
    if (await isCurrentPassword(user.password_hash, input.oldPassword)) await takeBack();
    else {
      errors.oldPassword = invalidOldPassword();
      // Kept in the security log even when this fails a batch (its rollback would drop it).
      await lastingWrite(ctx, (ctx) =>
        recordEvent(ctx.db, {
          type: 'password_changed',
          userId: user.id,
          client,
          outcome: 'failure',
          detail: { reason: 'wrong_old_password' },
        }),
      );
    }
  }
  assertNoFieldErrors(errors, UPDATE_FAILED);

  const at = new Date();
  const now = formatDate(at);
  const updated: User = {
    ...user,
    ...changes,
    password_hash: await hashPassword(password),
    token_key: newSecret(),
    updated: now,
  };
  await withAvatar(ctx, user, changes, newAvatar, () =>
    inTransaction(ctx, async (work) => {
      const { trx } = work;
      await trx
        .updateTable('users')
        .set({
          ...changes,
          password_hash: updated.password_hash,
          token_key: updated.token_key,
          updated: now,
        })
        .where('id', '=', user.id)
        .execute();
      work.publish({ type: 'user-changed', userId: user.id });
      await endSessions(work, user.id, { keep: session.id }, (ended) => ({
        type: 'password_changed',
        client,
        detail: { otherSessionsEnded: ended },
      }));
      const { appName } = ctx.settings;
      await queueNotice(ctx, trx, updated, client, passwordChangedNotice(appName, 'others'));
      work.mailQueued();
    }),
  );
  return { user: updated, token: sessionToken(ctx, updated, session) };
}

/**
 * Runs the record's update with its avatar in place: a new file is stored first (the record never
 * names a file that is not there) and removed again when the update fails; once the update is
 * done, the file the record named before goes, whether it was replaced or removed.
 */
async function withAvatar(
  ctx: AppContext,
  user: User,
  changes: ProfileChanges,
  newAvatar: NewAvatar | undefined,
  update: () => Promise<unknown>,
): Promise<void> {
  const files = filesOf(ctx);
  if (newAvatar) await files.put(user.id, newAvatar.name, '', newAvatar.data);
  try {
    await update();
  } catch (error) {
    if (newAvatar) await files.remove(user.id, newAvatar.name).catch(() => {});
    throw error;
  }
  if (changes.avatar !== undefined && changes.avatar !== user.avatar) {
    await removeOldAvatar(ctx, user.id, user.avatar);
  }
}
