import type { AppContext } from '../core/context.js';
import { isOperator } from '../core/users.js';
import { memberFiles, type MemberFiles } from '../db/member-files.js';
import type { User } from '../db/schema.js';
import {
  type ImageType,
  imageTypeOfName,
  makeThumb,
  parseThumbSize,
  UnreadableImageError,
} from '../tools/images.js';

/**
 * Serving avatars: who may see one, and its thumbs, made at their first request and kept beside
 * it (docs/decisions/0050).
 */

/**
 * The thumb sizes the avatar field offers (PocketBase's `thumbs` option, and its default
 * `100x100`). Any other `thumb` gets the original, as PocketBase answers it: a client cannot
 * make the server cut and store a thumb of every size it can name.
 */
export const AVATAR_THUMBS: readonly string[] = [
  '100x100',
  '40x40',
  '200x200',
  '400x400',
  '100x100t',
  '100x100f',
  '200x0',
  '0x200',
];

/** The members' files of this server's database (db/member-files.ts). */
export function filesOf(ctx: AppContext): MemberFiles {
  return memberFiles(ctx.db, ctx.config.dataDir);
}

/**
 * Whether `viewer` may see `owner`'s files: their own, the member who invited them, the members
 * they invited; an operator anyone's. Everyone else is told the file does not exist (404).
 */
export function maySeeFilesOf(
  viewer: Pick<User, 'id' | 'invited_by' | 'is_operator' | 'is_initial_user'>,
  owner: Pick<User, 'id' | 'invited_by'>,
): boolean {
  return (
    viewer.id === owner.id ||
    owner.invited_by === viewer.id ||
    (viewer.invited_by !== null && viewer.invited_by === owner.id) ||
    isOperator(viewer)
  );
}

export interface ServedFile {
  data: Buffer;
  type: ImageType;
  /** The name it is served under: the file's, or `100x100_<file>` for a thumb (PocketBase's). */
  name: string;
}

/** Thumbs being made now, by file and size: two requests for one wait for the same work. */
const making = new Map<string, Promise<Buffer>>();

/**
 * The owner's avatar `filename`, or a thumb of it when `thumb` is one of AVATAR_THUMBS; undefined
 * when the owner has no such file. A thumb that cannot be made falls back to the original (as
 * PocketBase does), logged.
 */
export async function avatarFile(
  ctx: AppContext,
  owner: User,
  filename: string,
  thumb: string | undefined,
): Promise<ServedFile | undefined> {
  if (owner.avatar === '' || owner.avatar !== filename) return undefined;
  const type = imageTypeOfName(filename);
  if (!type) return undefined;
  const files = filesOf(ctx);
  const size = thumb && AVATAR_THUMBS.includes(thumb) ? parseThumbSize(thumb) : undefined;
  if (thumb && size) {
    const kept = await files.get(owner.id, filename, thumb);
    if (kept) return { data: kept, type, name: `${thumb}_${filename}` };
  }
  const original = await files.get(owner.id, filename, '');
  if (!original) return undefined;
  if (!thumb || !size) return { data: original, type, name: filename };

  const key = `${owner.id}/${filename}/${thumb}`;
  let work = making.get(key);
  if (!work) {
    work = (async () => {
      const data = await makeThumb(original, type, size);
      await files.put(owner.id, filename, thumb, data);
      return data;
    })().finally(() => making.delete(key));
    making.set(key, work);
  }
  try {
    return { data: await work, type, name: `${thumb}_${filename}` };
  } catch (error) {
    if (!(error instanceof UnreadableImageError)) throw error;
    ctx.log.warn({ err: error, userId: owner.id, thumb }, 'thumb failed; serving the original');
    return { data: original, type, name: filename };
  }
}

/**
 * Removes a file the record no longer names (replaced or removed). The record has already changed,
 * so a failure here only leaves a file nobody can ask for: it is logged, not thrown.
 */
export async function removeOldAvatar(ctx: AppContext, userId: string, name: string) {
  if (name === '') return;
  try {
    await filesOf(ctx).remove(userId, name);
  } catch (error) {
    ctx.log.error({ err: error, userId }, 'removing a replaced avatar failed');
  }
}
