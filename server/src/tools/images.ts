import type { ResizeOptions, Sharp } from 'sharp';
import type sharpModule from 'sharp';
import { lazyRequire } from './lazy-require.js';

/**
 * Images members upload: told apart by their first bytes (never by name or declared type),
 * re-encoded with sharp (libvips) so that what is stored is pixels the server wrote itself, with
 * no metadata (EXIF, GPS, comments), and thumbs cut in PocketBase's sizes. sharp is loaded at the
 * first upload or thumb (docs/decisions/0041): most requests never need it.
 */

export type ImageType = 'image/jpeg' | 'image/png' | 'image/webp' | 'image/gif';

/** The types accepted, in PocketBase's wording of its field error. */
export const IMAGE_TYPES: readonly ImageType[] = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
];

/** The extension a stored file of each type gets (its name says what it is). */
export const IMAGE_EXTENSIONS: Record<ImageType, string> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
  'image/gif': '.gif',
};

/** The type a stored file's name says (its extension), for serving it. */
export function imageTypeOfName(name: string): ImageType | undefined {
  const extension = name.slice(name.lastIndexOf('.'));
  return IMAGE_TYPES.find((type) => IMAGE_EXTENSIONS[type] === extension);
}

/**
 * At most this many pixels are decoded (all frames together): a small file can claim a huge
 * canvas (a "decompression bomb"). 50 megapixels holds any phone photo that fits in 5 MB.
 */
const MAX_INPUT_PIXELS = 50_000_000;

/** Stored images fit inside this square; larger ones are scaled down (an avatar needs no more). */
export const MAX_STORED_SIDE = 2048;

/** The type of an image from its first bytes (its magic number), or undefined for anything else. */
export function imageTypeOf(data: Buffer): ImageType | undefined {
  const starts = (bytes: number[], at = 0) => bytes.every((byte, i) => data[at + i] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  const ascii = (from: number, to: number) => data.subarray(from, to).toString('latin1');
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/** The image could not be decoded as the type its bytes announce (damaged, or too many pixels). */
export class UnreadableImageError extends Error {
  constructor(cause: unknown) {
    super('The image could not be read', { cause });
    this.name = 'UnreadableImageError';
  }
}

const sharp = () => lazyRequire<typeof sharpModule>('sharp');

/** Encodes in `type` (metadata is never written: sharp drops it unless asked to keep it). */
function encode(image: Sharp, type: ImageType): Sharp {
  switch (type) {
    case 'image/jpeg':
      return image.jpeg({ quality: 85, mozjpeg: true });
    case 'image/png':
      return image.png();
    case 'image/webp':
      return image.webp({ quality: 85 });
    case 'image/gif':
      return image.gif();
  }
}

async function run(image: () => Sharp): Promise<Buffer> {
  try {
    return await image().toBuffer();
  } catch (error) {
    throw new UnreadableImageError(error);
  }
}

/**
 * The image decoded and written again in its own type: turned upright by its EXIF orientation
 * first (that tag goes with the rest of the metadata), scaled down to fit MAX_STORED_SIDE, every
 * frame of an animation kept. UnreadableImageError when it cannot be decoded.
 */
export function reencodeImage(data: Buffer, type: ImageType): Promise<Buffer> {
  const animated = type === 'image/gif' || type === 'image/webp';
  return run(() =>
    encode(
      sharp()(data, { limitInputPixels: MAX_INPUT_PIXELS, animated }).autoOrient().resize({
        width: MAX_STORED_SIDE,
        height: MAX_STORED_SIDE,
        fit: 'inside',
        withoutEnlargement: true,
      }),
      type,
    ),
  );
}

/** PocketBase's thumb sizes: `WxH` (crop from the centre), `WxHt`/`WxHb` (from the top or bottom), `WxHf` (fit inside), `Wx0`/`0xH` (keep the proportions). */
const THUMB_SIZE = /^(\d{1,4})x(\d{1,4})([tbf])?$/;

export interface ThumbSize {
  width: number;
  height: number;
  mode: 'center' | 'top' | 'bottom' | 'fit';
}

/** The size a thumb name asks for, or undefined when it is not one (or both sides are 0). */
export function parseThumbSize(size: string): ThumbSize | undefined {
  const match = THUMB_SIZE.exec(size);
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (width === 0 && height === 0) return undefined;
  const mode = ({ t: 'top', b: 'bottom', f: 'fit' } as const)[match[3] as 't' | 'b' | 'f'];
  return { width, height, mode: mode ?? 'center' };
}

/**
 * A thumb of a stored image, in its type, as PocketBase cuts one: of the first frame only; one side
 * 0 resizes to the other keeping the proportions; `f` fits inside without enlarging; otherwise the
 * image covers the box and is cropped (centre, top or bottom).
 */
export function makeThumb(data: Buffer, type: ImageType, size: ThumbSize): Promise<Buffer> {
  const { width, height, mode } = size;
  const resize: ResizeOptions =
    width === 0 || height === 0
      ? { width: width || undefined, height: height || undefined }
      : mode === 'fit'
        ? { width, height, fit: 'inside', withoutEnlargement: true }
        : { width, height, fit: 'cover', position: mode === 'center' ? 'centre' : mode };
  return run(() =>
    encode(sharp()(data, { limitInputPixels: MAX_INPUT_PIXELS }).resize(resize), type),
  );
}
