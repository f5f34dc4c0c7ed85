import { fieldError, type FieldError } from '../core/errors.js';
import type { UploadedFile } from '../http/multipart.js';
import {
  IMAGE_EXTENSIONS,
  IMAGE_TYPES,
  type ImageType,
  imageTypeOf,
  reencodeImage,
  UnreadableImageError,
} from '../tools/images.js';
import { randomString } from '../tools/random.js';

/**
 * The member's name and face: PocketBase's `name` and `avatar` fields of the users record, with
 * PocketBase's field errors (docs/decisions/0050).
 */

/** A name's longest length, in characters (code points, as PocketBase counts them). */
export const NAME_MAX = 100;

/** An avatar's largest size (PocketBase's default for a file field). */
export const AVATAR_MAX_BYTES = 5 * 1024 * 1024;

/** The record update's largest multipart form: the avatar and a few text fields. */
export const AVATAR_FORM_LIMIT = 6 * 1024 * 1024;

/**
 * Characters a name may not hold: control characters (C0, DEL, C1), line and paragraph
 * separators, and the bidirectional overrides and isolates, which would turn the text after a
 * name around wherever it is shown. Joiners and variation selectors stay (emoji need them).
 */
const NOT_IN_NAMES = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** A name as stored: composed (NFC) and trimmed. */
export function normalizeName(name: string): string {
  return name.normalize('NFC').trim();
}

/** What is wrong with a (normalized) name, or undefined. '' is no name, which is fine. */
export function nameError(name: string): FieldError | undefined {
  if ([...name].length > NAME_MAX) return fieldError.maxText(NAME_MAX);
  if (NOT_IN_NAMES.test(name)) {
    return { code: 'validation_invalid_format', message: 'Invalid value format.' };
  }
  return undefined;
}

/** A client's file name in a message: its last 300 characters, without control characters. */
function shown(filename: string): string {
  return filename.replace(/\p{Cc}/gu, '').slice(-300);
}

const fileTooLarge = (filename: string): FieldError => ({
  code: 'validation_file_size_limit',
  message: `Failed to upload ${shown(filename)} - the maximum allowed file size is ${AVATAR_MAX_BYTES} bytes.`,
  params: { maxSize: AVATAR_MAX_BYTES },
});

const notAnImage = (filename: string): FieldError => ({
  code: 'validation_invalid_mime_type',
  message: `${JSON.stringify(shown(filename))} mime type must be one of: ${IMAGE_TYPES.join(', ')}.`,
});

/** A text value for `avatar` that is neither '' nor the current file (PocketBase's message). */
export const invalidAvatarName = (value: string): FieldError => ({
  code: 'validation_invalid_file',
  message: `Invalid new files: [${shown(value).slice(0, 250)}].`,
});

/** An uploaded avatar, checked and re-encoded: the name it is stored under, and its bytes. */
export interface NewAvatar {
  name: string;
  data: Buffer;
}

/**
 * Reads an uploaded avatar: at most AVATAR_MAX_BYTES, a JPEG, PNG, WebP or GIF by its first bytes
 * (whatever its name or declared type says), and decodable as one; then re-encoded (tools/images.ts:
 * upright, no metadata, at most 2048 pixels a side). A FieldError for `avatar` otherwise.
 */
export async function readAvatar(upload: UploadedFile): Promise<NewAvatar | FieldError> {
  if (upload.truncated) return fileTooLarge(upload.filename);
  const type = imageTypeOf(upload.data);
  if (!type) return notAnImage(upload.filename);
  try {
    const data = await reencodeImage(upload.data, type);
    return { name: storedFileName(upload.filename, type), data };
  } catch (error) {
    if (error instanceof UnreadableImageError) return notAnImage(upload.filename);
    throw error;
  }
}

const RANDOM_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * The name a file is stored under, as PocketBase makes it (core/field_file.go, normalizeName): the
 * client's name in snake_case (ASCII letters and digits; a short one gets random letters), then
 * `_` and ten random characters, so a new file never has an old one's name. The extension is the
 * one of the type the content has, not the one the client gave.
 */
export function storedFileName(filename: string, type: ImageType): string {
  const dot = filename.lastIndexOf('.');
  const base = (dot > 0 ? filename.slice(0, dot) : filename).slice(-300);
  let clean = base
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '')
    .map((word) => word.replace(/(?<=[^A-Z])([A-Z])/g, '_$1'))
    .join('_')
    .toLowerCase();
  if (clean.length < 3) clean += randomString(10, RANDOM_ALPHABET);
  clean = clean.slice(0, 100);
  return `${clean}_${randomString(10, RANDOM_ALPHABET)}${IMAGE_EXTENSIONS[type]}`;
}
