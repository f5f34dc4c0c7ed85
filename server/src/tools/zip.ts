import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform, Writable } from 'node:stream';
import zlib from 'node:zlib';

/**
 * ZIP archives as PocketBase's backups are (`application/zip`): enough of the format to write one
 * from files on disk and to read an entry back, streaming, so a database of any size fits. Entries
 * are deflated, or stored when they are 4 GiB or more (ZIP64 then: sizes and offsets past 32 bits).
 * Reading takes deflated and stored entries, checks each one's CRC-32 and size, and refuses
 * anything else (encryption, other methods) as not an archive of ours.
 */

/** Why a file is not an archive this reads (printed as it is). */
export class ZipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipError';
  }
}

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
const END64 = 0x06064b50;
const LOCATOR64 = 0x07064b50;
const MAX32 = 0xffffffff;
/**
 * An entry this large (3.75 GiB) is stored, not deflated: its compressed size is then known
 * beforehand, and deflating the rest can never take it past 32 bits.
 */
const STORE_FROM = 0xf0000000;
/** Version 4.5: ZIP64; 2.0: deflate. Unix (3) in the high byte of "made by". */
const VERSION_64 = 45;
const VERSION_20 = 20;
/** Bit 11: names are UTF-8. */
const UTF8 = 0x0800;

export interface ZipSource {
  /** The entry's name in the archive (`gatehouse.db`). */
  name: string;
  /** The file it is made from. */
  path: string;
}

interface Written {
  name: Buffer;
  method: number;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
  time: number;
  date: number;
}

/** MS-DOS time and date of `at` (local time, as ZIP tools show it). */
function dosTime(at: Date): { time: number; date: number } {
  const year = Math.max(at.getFullYear(), 1980);
  return {
    time: (at.getHours() << 11) | (at.getMinutes() << 5) | (at.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((at.getMonth() + 1) << 5) | at.getDate(),
  };
}

/** Counts and checksums what passes through it. */
class Tally extends Transform {
  bytes = 0;
  crc = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.bytes += chunk.length;
    this.crc = zlib.crc32(chunk, this.crc);
    this.push(chunk);
    done();
  }
}

/** Writes the archive `target` (created 0600 by the caller, or made here) of `sources`. */
export async function writeZip(target: string, sources: ZipSource[]): Promise<void> {
  const fd = fs.openSync(target, 'w', 0o600);
  try {
    let offset = 0;
    const written: Written[] = [];
    for (const source of sources) {
      const name = Buffer.from(source.name, 'utf8');
      const stat = fs.statSync(source.path);
      const big = stat.size >= STORE_FROM;
      const method = big ? 0 : 8;
      const { time, date } = dosTime(stat.mtime);
      // The local header is written again once the CRC and sizes are known (same length).
      const header = (crc: number, compressed: number, size: number) => {
        const extra = big ? zip64Extra([size, compressed]) : Buffer.alloc(0);
        const b = Buffer.alloc(30);
        b.writeUInt32LE(LOCAL, 0);
        b.writeUInt16LE(big ? VERSION_64 : VERSION_20, 4);
        b.writeUInt16LE(UTF8, 6);
        b.writeUInt16LE(method, 8);
        b.writeUInt16LE(time, 10);
        b.writeUInt16LE(date, 12);
        b.writeUInt32LE(crc >>> 0, 14);
        b.writeUInt32LE(big ? MAX32 : compressed, 18);
        b.writeUInt32LE(big ? MAX32 : size, 22);
        b.writeUInt16LE(name.length, 26);
        b.writeUInt16LE(extra.length, 28);
        return Buffer.concat([b, name, extra]);
      };
      const start = offset;
      const placeholder = header(0, 0, 0);
      fs.writeSync(fd, placeholder, 0, placeholder.length, start);
      const dataStart = start + placeholder.length;
      const tally = new Tally();
      let compressed = 0;
      let position = dataStart;
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          try {
            fs.writeSync(fd, chunk, 0, chunk.length, position);
            position += chunk.length;
            compressed += chunk.length;
            done();
          } catch (error) {
            done(error as Error);
          }
        },
      });
      const steps: NodeJS.ReadWriteStream[] = [tally];
      if (method === 8) steps.push(zlib.createDeflateRaw({ level: 6 }));
      await pipeline([fs.createReadStream(source.path), ...steps, sink]);
      const final = header(tally.crc, compressed, tally.bytes);
      fs.writeSync(fd, final, 0, final.length, start);
      written.push({
        name,
        method,
        crc: tally.crc,
        compressed,
        size: tally.bytes,
        offset: start,
        time,
        date,
      });
      offset = position;
    }
    writeDirectory(fd, written, offset);
  } finally {
    fs.closeSync(fd);
  }
}

/** ZIP64's extended information: the given 64-bit values, in the order the format names them. */
function zip64Extra(values: number[]): Buffer {
  const b = Buffer.alloc(4 + 8 * values.length);
  b.writeUInt16LE(0x0001, 0);
  b.writeUInt16LE(8 * values.length, 2);
  values.forEach((v, i) => b.writeBigUInt64LE(BigInt(v), 4 + 8 * i));
  return b;
}

function writeDirectory(fd: number, entries: Written[], start: number): void {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const wide = [e.size, e.compressed, e.offset].map((v) => v >= MAX32);
    const values = [e.size, e.compressed, e.offset].filter((_, i) => wide[i]);
    const extra = values.length > 0 ? zip64Extra(values) : Buffer.alloc(0);
    const b = Buffer.alloc(46);
    const version = values.length > 0 ? VERSION_64 : VERSION_20;
    b.writeUInt32LE(CENTRAL, 0);
    b.writeUInt16LE((3 << 8) | version, 4);
    b.writeUInt16LE(version, 6);
    b.writeUInt16LE(UTF8, 8);
    b.writeUInt16LE(e.method, 10);
    b.writeUInt16LE(e.time, 12);
    b.writeUInt16LE(e.date, 14);
    b.writeUInt32LE(e.crc >>> 0, 16);
    b.writeUInt32LE(wide[1] ? MAX32 : e.compressed, 20);
    b.writeUInt32LE(wide[0] ? MAX32 : e.size, 24);
    b.writeUInt16LE(e.name.length, 28);
    b.writeUInt16LE(extra.length, 30);
    // Comment length, disk number, internal attributes 0; external: a regular file, 0600.
    b.writeUInt32LE(((0o100600 << 16) >>> 0) as number, 38);
    b.writeUInt32LE(wide[2] ? MAX32 : e.offset, 42);
    parts.push(b, e.name, extra);
  }
  const directory = Buffer.concat(parts);
  const size = directory.length;
  const end = start + size;
  const tail: Buffer[] = [];
  const needs64 = entries.length >= 0xffff || start >= MAX32 || size >= MAX32;
  if (needs64) {
    const z = Buffer.alloc(56);
    z.writeUInt32LE(END64, 0);
    z.writeBigUInt64LE(44n, 4);
    z.writeUInt16LE((3 << 8) | VERSION_64, 12);
    z.writeUInt16LE(VERSION_64, 14);
    z.writeBigUInt64LE(BigInt(entries.length), 24);
    z.writeBigUInt64LE(BigInt(entries.length), 32);
    z.writeBigUInt64LE(BigInt(size), 40);
    z.writeBigUInt64LE(BigInt(start), 48);
    const l = Buffer.alloc(20);
    l.writeUInt32LE(LOCATOR64, 0);
    l.writeBigUInt64LE(BigInt(end), 8);
    l.writeUInt32LE(1, 16);
    tail.push(z, l);
  }
  const e = Buffer.alloc(22);
  e.writeUInt32LE(END, 0);
  e.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  e.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  e.writeUInt32LE(Math.min(size, MAX32), 12);
  e.writeUInt32LE(Math.min(start, MAX32), 16);
  const all = Buffer.concat([directory, ...tail, e]);
  fs.writeSync(fd, all, 0, all.length, start);
}

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const b = Buffer.alloc(length);
  const read = fs.readSync(fd, b, 0, length, position);
  if (read !== length) throw new ZipError('the archive ends too early');
  return b;
}

/** The entries of the archive at `file`, from its central directory. */
export function listZip(file: string): ZipEntry[] {
  const fd = fs.openSync(file, 'r');
  try {
    const fileSize = fs.fstatSync(fd).size;
    const tailLength = Math.min(fileSize, 22 + 0xffff);
    const tail = readAt(fd, fileSize - tailLength, tailLength);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === END) {
        at = i;
        break;
      }
    }
    if (at < 0) throw new ZipError('not a ZIP archive (no end of central directory)');
    let count = tail.readUInt16LE(at + 10);
    let size = tail.readUInt32LE(at + 12);
    let start = tail.readUInt32LE(at + 16);
    const endAt = fileSize - tailLength + at;
    if (endAt >= 20) {
      const locator = readAt(fd, endAt - 20, 20);
      if (locator.readUInt32LE(0) === LOCATOR64) {
        const z = readAt(fd, Number(locator.readBigUInt64LE(8)), 56);
        if (z.readUInt32LE(0) !== END64) throw new ZipError('a damaged ZIP64 directory');
        count = Number(z.readBigUInt64LE(32));
        size = Number(z.readBigUInt64LE(40));
        start = Number(z.readBigUInt64LE(48));
      }
    }
    if (start + size > fileSize) throw new ZipError('the archive ends too early');
    const directory = readAt(fd, start, size);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let n = 0; n < count; n++) {
      if (p + 46 > directory.length || directory.readUInt32LE(p) !== CENTRAL) {
        throw new ZipError('a damaged central directory');
      }
      const nameLength = directory.readUInt16LE(p + 28);
      const extraLength = directory.readUInt16LE(p + 30);
      const commentLength = directory.readUInt16LE(p + 32);
      const entry: ZipEntry = {
        flags: directory.readUInt16LE(p + 8),
        method: directory.readUInt16LE(p + 10),
        crc: directory.readUInt32LE(p + 16),
        compressed: directory.readUInt32LE(p + 20),
        size: directory.readUInt32LE(p + 24),
        offset: directory.readUInt32LE(p + 42),
        name: directory.toString('utf8', p + 46, p + 46 + nameLength),
      };
      wideValues(entry, directory.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength));
      entries.push(entry);
      p += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    fs.closeSync(fd);
  }
}

/** Fills in the sizes and offset a ZIP64 extra field holds for the fields marked 0xffffffff. */
function wideValues(entry: ZipEntry, extra: Buffer): void {
  for (let p = 0; p + 4 <= extra.length;) {
    const id = extra.readUInt16LE(p);
    const length = extra.readUInt16LE(p + 2);
    if (id === 0x0001) {
      let q = p + 4;
      const next = () => {
        const v = Number(extra.readBigUInt64LE(q));
        q += 8;
        return v;
      };
      if (entry.size === MAX32) entry.size = next();
      if (entry.compressed === MAX32) entry.compressed = next();
      if (entry.offset === MAX32) entry.offset = next();
      return;
    }
    p += 4 + length;
  }
}

/** Writes the entry `name` of the archive `file` to `target` (0600), checking its CRC and size. */
export async function extractZipEntry(file: string, name: string, target: string): Promise<void> {
  const entry = listZip(file).find((e) => e.name === name);
  if (!entry) throw new ZipError(`no ${name} in the archive`);
  if (entry.flags & 0x1) throw new ZipError(`${name} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8) {
    throw new ZipError(`${name} is compressed in a way this server does not read`);
  }
  const fd = fs.openSync(file, 'r');
  let dataStart: number;
  try {
    const local = readAt(fd, entry.offset, 30);
    if (local.readUInt32LE(0) !== LOCAL) throw new ZipError(`a damaged entry (${name})`);
    dataStart = entry.offset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  } finally {
    fs.closeSync(fd);
  }
  const tally = new Tally();
  const steps: NodeJS.ReadWriteStream[] = [];
  if (entry.method === 8) steps.push(zlib.createInflateRaw());
  const source =
    entry.compressed === 0
      ? Readable.from([])
      : fs.createReadStream(file, { start: dataStart, end: dataStart + entry.compressed - 1 });
  try {
    await pipeline([source, ...steps, tally, fs.createWriteStream(target, { mode: 0o600 })]);
  } catch (error) {
    fs.rmSync(target, { force: true });
    if (error instanceof ZipError) throw error;
    throw new ZipError(`${name} cannot be read (${(error as Error).message})`);
  }
  if (tally.bytes !== entry.size || tally.crc >>> 0 !== entry.crc >>> 0) {
    fs.rmSync(target, { force: true });
    throw new ZipError(`${name} is damaged (its checksum does not match)`);
  }
}

/** Whether the file starts as a ZIP archive does (what PocketBase's upload checks: application/zip). */
export function looksLikeZip(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    return fs.readSync(fd, b, 0, 4, 0) === 4 && b.readUInt32LE(0) === LOCAL;
  } finally {
    fs.closeSync(fd);
  }
}
