import { formatDate } from '../tools/time.js';
import type { Batch, StoredBatch } from './store.js';

/**
 * The request log's entries: how the onResponse hook keeps them (columns of numbers, texts once
 * each), how a run of them is packed into one stored row, and how a row is read back as
 * PocketBase's log rows.
 *
 * Kept as columns (typed arrays, and a dictionary of the texts: routes, methods, addresses,
 * browsers, member ids) rather than an object per request: objects that wait a second for the
 * next write outlive the young generation and cost the garbage collector more than the request
 * spends on its log otherwise (docs/decisions/0053).
 *
 * A stored batch is JSON: `{"t": first entry's time (ms), "s": [the texts its entries use, once
 * each], "e": [entries]}`, a request as `[ms after t, status, µs, method, url, address, browser,
 * member]` (texts by their index in `s`, the member -1 for none), any other entry as
 * `{"dt", "l": level, "m": message, "d": data}`.
 *
 * Read back, an entry is PocketBase's log: `id` (the batch's id in base 36 over 10 characters,
 * then the entry's index over 5: 15 characters of [a-z0-9], like PocketBase's ids), `created`,
 * `data`, `message`, `level`. A request's data (keys in PocketBase's order): `auth` ("users" when
 * the route accepted a member's token, else ""), `authId` (that member's id), `execTime` (ms),
 * `method`, `remoteIP` (the client's address after TRUST_PROXY), `status`, `type` ("request"),
 * `url` (the route's path pattern; `(unmatched)` for a path no route takes) and `userAgent`. Level
 * 0 (info) for answers below 400, 8 (error) from 400, as PocketBase logs a request that returned
 * an error.
 */

/** PocketBase's (slog's) levels. */
export const LEVEL_INFO = 0;
export const LEVEL_WARN = 4;
export const LEVEL_ERROR = 8;

/** The longest browser name kept. */
const MAX_USER_AGENT = 512;

/** A request, as tests and `packBatches` take one. */
export interface RequestEntry {
  at: number;
  method: string;
  /** The route's pattern. */
  url: string;
  status: number;
  /** reply.elapsedTime, ms. */
  ms: number;
  ip: string;
  userAgent: string;
  /** The member whose token the route accepted ('' for none). */
  authId: string;
}

/** Any other entry (a scheduled job's run, the buffer's overflow). */
export interface OtherEntry {
  at: number;
  level: number;
  message: string;
  data: Record<string, unknown>;
}

/** A log row as the API answers it (contract/logs.ts). */
export interface LogEntry {
  id: string;
  created: string;
  data: Record<string, unknown>;
  message: string;
  level: number;
}

/** The texts entries refer to by number: each kept once. */
export class Texts {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  private pinned = 0;

  /** The number of `text`, adding it when new. */
  of(text: string): number {
    let i = this.index.get(text);
    if (i === undefined) {
      i = this.list.length;
      this.index.set(text, i);
      this.list.push(text);
    }
    return i;
  }

  /** Keeps the texts added so far (route patterns, methods) through every `trim`. */
  pin(): void {
    this.pinned = this.list.length;
  }

  /** Forgets the texts added since `pin` once there are more than `max` (no entry refers to them). */
  trim(max: number): void {
    if (this.list.length <= max) return;
    for (const text of this.list.splice(this.pinned)) this.index.delete(text);
  }
}

/**
 * Requests waiting to be written, as columns: a ring of up to `capacity` entries, the oldest
 * overwritten (and counted) when full. The columns start small and double as requests wait, so
 * an idle server does not hold room for 50,000 of them.
 */
export class RequestColumns {
  at: Float64Array;
  /** reply.elapsedTime in µs, rounded. */
  us: Float64Array;
  status: Uint16Array;
  method: Int32Array;
  url: Int32Array;
  ip: Int32Array;
  agent: Int32Array;
  auth: Int32Array;
  /** The columns' length now (at most `capacity`); slots are counted modulo it. */
  size: number;
  start = 0;
  count = 0;
  /** Entries overwritten since the last `clear`. */
  dropped = 0;

  constructor(
    readonly capacity: number,
    initial = 1024,
  ) {
    this.size = Math.min(initial, capacity);
    this.at = new Float64Array(this.size);
    this.us = new Float64Array(this.size);
    this.status = new Uint16Array(this.size);
    this.method = new Int32Array(this.size);
    this.url = new Int32Array(this.size);
    this.ip = new Int32Array(this.size);
    this.agent = new Int32Array(this.size);
    this.auth = new Int32Array(this.size);
  }

  /** The slot for a new entry (the caller fills every column). */
  next(): number {
    if (this.count === this.size && this.size < this.capacity) this.grow();
    if (this.count === this.size) {
      const slot = this.start;
      this.start = (this.start + 1) % this.size;
      this.dropped += 1;
      return slot;
    }
    const slot = (this.start + this.count) % this.size;
    this.count += 1;
    return slot;
  }

  /**
   * Doubles the columns (up to `capacity`). Only while nothing was overwritten, so `start` is 0
   * and every slot keeps its number (a member found later is written into its slot by number).
   */
  private grow(): void {
    const size = Math.min(this.size * 2, this.capacity);
    const wider = <T extends Float64Array | Uint16Array | Int32Array>(
      old: T,
      make: (n: number) => T,
    ) => {
      const column = make(size);
      column.set(old);
      return column;
    };
    this.at = wider(this.at, (n) => new Float64Array(n));
    this.us = wider(this.us, (n) => new Float64Array(n));
    this.status = wider(this.status, (n) => new Uint16Array(n));
    this.method = wider(this.method, (n) => new Int32Array(n));
    this.url = wider(this.url, (n) => new Int32Array(n));
    this.ip = wider(this.ip, (n) => new Int32Array(n));
    this.agent = wider(this.agent, (n) => new Int32Array(n));
    this.auth = wider(this.auth, (n) => new Int32Array(n));
    this.size = size;
  }

  clear(): void {
    this.start = 0;
    this.count = 0;
    this.dropped = 0;
  }
}

const HOUR_MS = 3600_000;

/**
 * The requests in `columns` and the `others`, packed into batches: one per hour the requests
 * fall in (so that hourly counts can be read from the batches alone), and the others after them.
 */
export function packColumns(columns: RequestColumns, texts: Texts, others: OtherEntry[]): Batch[] {
  const batches: Batch[] = [];
  const slot = (i: number) => (columns.start + i) % columns.size;
  let from = 0;
  for (let i = 1; i <= columns.count; i++) {
    if (
      i === columns.count ||
      Math.floor(columns.at[slot(i)]! / HOUR_MS) !== Math.floor(columns.at[slot(from)]! / HOUR_MS)
    ) {
      batches.push(packRequests(columns, texts, from, i, slot));
      from = i;
    }
  }
  // Other entries are few (a job's run, a warning): one batch each, in their own hour.
  for (const other of others) {
    batches.push({
      first: formatDate(new Date(other.at)),
      last: formatDate(new Date(other.at)),
      n: 1,
      entries: `{"t":${other.at},"s":[],"e":[${JSON.stringify({ dt: 0, l: other.level, m: other.message, d: other.data })}]}`,
    });
  }
  return batches;
}

function packRequests(
  c: RequestColumns,
  texts: Texts,
  from: number,
  to: number,
  slot: (i: number) => number,
): Batch {
  let t = Infinity;
  let last = -Infinity;
  for (let i = from; i < to; i++) {
    const at = c.at[slot(i)]!;
    if (at < t) t = at;
    if (at > last) last = at;
  }
  // The batch's own numbering of the texts it uses (-1: not used yet).
  const local = new Int32Array(texts.list.length).fill(-1);
  const used: string[] = [];
  const ref = (global: number) => {
    let i = local[global]!;
    if (i === -1) {
      i = used.length;
      local[global] = i;
      const text = texts.list[global]!;
      used.push(
        JSON.stringify(text.length > MAX_USER_AGENT ? text.slice(0, MAX_USER_AGENT) : text),
      );
    }
    return i;
  };
  const packed: string[] = [];
  for (let i = from; i < to; i++) {
    const s = slot(i);
    const auth = c.auth[s]!;
    packed.push(
      `[${c.at[s]! - t},${c.status[s]},${c.us[s]},${ref(c.method[s]!)},${ref(c.url[s]!)},${ref(c.ip[s]!)},${ref(c.agent[s]!)},${auth === -1 ? -1 : ref(auth)}]`,
    );
  }
  return {
    first: formatDate(new Date(t)),
    last: formatDate(new Date(last)),
    n: to - from,
    entries: `{"t":${t},"s":[${used.join(',')}],"e":[${packed.join(',')}]}`,
  };
}

/** Requests given as objects packed as the server packs them (tests write entries of the past). */
export function packBatches(entries: RequestEntry[]): Batch[] {
  const texts = new Texts();
  const columns = new RequestColumns(Math.max(entries.length, 1));
  for (const e of entries) {
    const s = columns.next();
    columns.at[s] = e.at;
    columns.us[s] = Math.round(e.ms * 1000);
    columns.status[s] = e.status;
    columns.method[s] = texts.of(e.method);
    columns.url[s] = texts.of(e.url);
    columns.ip[s] = texts.of(e.ip);
    columns.agent[s] = texts.of(e.userAgent);
    columns.auth[s] = e.authId ? texts.of(e.authId) : -1;
  }
  return packColumns(columns, texts, []);
}

const ID_BATCH = 10;
const ID_INDEX = 5;

/** The entry's id: its batch and its place in it. */
export function entryId(batch: number, index: number): string {
  return batch.toString(36).padStart(ID_BATCH, '0') + index.toString(36).padStart(ID_INDEX, '0');
}

/** The batch and place an id names; undefined for anything not made by entryId. */
export function parseEntryId(id: string): { batch: number; index: number } | undefined {
  if (!/^[a-z0-9]{15}$/.test(id)) return undefined;
  return {
    batch: parseInt(id.slice(0, ID_BATCH), 36),
    index: parseInt(id.slice(ID_BATCH), 36),
  };
}

type PackedRequest = [number, number, number, number, number, number, number, number];
type PackedOther = { dt: number; l: number; m: string; d: Record<string, unknown> };

/** A stored batch's entries, as the API answers them, in the order they were recorded. */
export function unpackBatch(batch: StoredBatch): LogEntry[] {
  const { t, s, e } = JSON.parse(batch.entries) as {
    t: number;
    s: string[];
    e: Array<PackedRequest | PackedOther>;
  };
  return e.map((item, index) => {
    const id = entryId(batch.id, index);
    if (!Array.isArray(item)) {
      return {
        id,
        created: formatDate(new Date(t + item.dt)),
        data: item.d,
        message: item.m,
        level: item.l,
      };
    }
    const [dt, status, us, method, url, ip, agent, auth] = item;
    const authId = auth === -1 ? '' : s[auth]!;
    return {
      id,
      created: formatDate(new Date(t + dt)),
      data: {
        auth: authId ? 'users' : '',
        authId,
        execTime: us / 1000,
        method: s[method]!,
        remoteIP: s[ip]!,
        status,
        type: 'request',
        url: s[url]!,
        userAgent: s[agent]!,
      },
      message: `${s[method]} ${s[url]}`,
      level: status >= 400 ? LEVEL_ERROR : LEVEL_INFO,
    };
  });
}
