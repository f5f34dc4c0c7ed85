import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Redis } from 'ioredis';
import { lazyRequire } from '../tools/lazy-require.js';
import type { Logger } from 'pino';
import { TooManyRequestsError } from './errors.js';

/**
 * The abuse limits, as sliding-window counters: the count of the current fixed
 * window plus the previous window's count weighted by how much of it still overlaps the last
 * `windowMs`. Unlike plain fixed windows, a burst straddling a window boundary cannot get twice
 * the limit through. In memory for one process, in Redis (REDIS_URL) when several instances must
 * share them. A request may count against several limits at once (the /api-wide one, its
 * endpoint's, and per account), which is why this is a small limiter of our own rather than a
 * per-route plugin (docs/decisions/0004-rate-limits.md).
 *
 * Counter keys are the limit's name and a fixed-size digest of the subject, so no input can make
 * a key (or the memory behind it) large.
 */
export interface WindowCounts {
  current: number;
  previous: number;
}

/**
 * What a limit counts per (`Limit.per`): a client's address (the default: an IPv4 address, an IPv6
 * /64), or an account (a member id, an email, an email from one network).
 */
export type CounterPool = 'address' | 'account';

export interface CounterStore {
  /**
   * Adds one hit to window `window` of `key`, a counter of `pool`; returns its count and window
   * `window - 1`'s.
   */
  hit(
    key: string,
    window: number,
    windowMs: number,
    pool?: CounterPool,
  ): Promise<WindowCounts | undefined>;
  /** Takes back one hit made in window `window` of `key` (nothing when there is none). */
  unhit(key: string, window: number, pool?: CounterPool): Promise<void>;
  close(): Promise<void>;
}

/**
 * At most this many keys in memory per pool (address and account counters); past it the pool's
 * oldest are dropped (docs/decisions/0012).
 */
export const MEMORY_MAX_KEYS = 100_000;

type Entry = { window: number; count: number; previous: number; expires: number };

/**
 * Counters in this process's memory, in two bounded pools. A client with many addresses makes a
 * key per address (every /api request counts against its address), so with one pool it could push
 * out the per-account counters that stop password guessing and reset them; an address key only
 * ever pushes out another address key.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly pools: Record<CounterPool, Map<string, Entry>> = {
    address: new Map(),
    account: new Map(),
  };
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly maxKeys = MEMORY_MAX_KEYS) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  /** How many keys are held now, in both pools. */
  get size(): number {
    return this.pools.address.size + this.pools.account.size;
  }

  keys(pool?: CounterPool): string[] {
    if (pool) return [...this.pools[pool].keys()];
    return [...this.pools.address.keys(), ...this.pools.account.keys()];
  }

  async hit(
    key: string,
    window: number,
    windowMs: number,
    pool: CounterPool = 'address',
  ): Promise<WindowCounts> {
    const counters = this.pools[pool];
    let entry = counters.get(key);
    if (!entry) {
      // Full: drop the pool's oldest key (a Map iterates in insertion order).
      if (counters.size >= this.maxKeys) {
        const oldest = counters.keys().next();
        if (!oldest.done) counters.delete(oldest.value);
      }
      entry = { window, count: 0, previous: 0, expires: 0 };
      counters.set(key, entry);
    } else if (entry.window !== window) {
      entry.previous = entry.window === window - 1 ? entry.count : 0;
      entry.window = window;
      entry.count = 0;
    }
    entry.count += 1;
    entry.expires = (window + 2) * windowMs;
    return { current: entry.count, previous: entry.previous };
  }

  async unhit(key: string, window: number, pool: CounterPool = 'address'): Promise<void> {
    const entry = this.pools[pool].get(key);
    if (!entry) return;
    if (entry.window === window) entry.count = Math.max(0, entry.count - 1);
    else if (entry.window === window + 1) entry.previous = Math.max(0, entry.previous - 1);
  }

  private sweep(): void {
    const now = Date.now();
    for (const counters of Object.values(this.pools)) {
      for (const [key, entry] of counters) if (entry.expires <= now) counters.delete(key);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local previous = redis.call('GET', KEYS[2])
return {count, tonumber(previous) or 0}`;

const UNHIT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/** While Redis answers errors over a live connection, try it again this often. */
const REDIS_RETRY_MS = 5_000;

/**
 * Counters in Redis, shared by instances. While Redis is away they are kept in memory (per
 * instance, so each instance enforces the limits on what it sees) and Redis is used again as soon
 * as it is back. The log gets one line when Redis goes away and one when it is back, never one per
 * request.
 */
export class RedisCounterStore implements CounterStore {
  private readonly redis: Redis;
  private state: 'connecting' | 'up' | 'down' = 'connecting';
  private retryAt = 0;
  private closing = false;

  constructor(
    url: string,
    private readonly log: Logger,
    private readonly prefix = 'gatehouse:rl:',
    readonly fallback = new MemoryCounterStore(),
  ) {
    // The offline queue only holds the hits made while the first connection is being set up;
    // once Redis has gone away, hits skip it and go to memory (see `useRedis`).
    const { Redis } = lazyRequire<typeof import('ioredis')>('ioredis');
    this.redis = new Redis(url, { maxRetriesPerRequest: 1 });
    this.redis.on('ready', () => this.markUp());
    this.redis.on('error', (err: Error) => this.markDown(err.message));
    this.redis.on('close', () => this.markDown('connection closed'));
  }

  /** 'up', 'down', or 'connecting' before the first connection. */
  get status(): string {
    return this.state;
  }

  private markUp(): void {
    if (this.state === 'down') this.log.info('rate-limit store: Redis is back; counting in Redis');
    this.state = 'up';
  }

  private markDown(reason: string): void {
    this.retryAt = Date.now() + REDIS_RETRY_MS;
    if (this.closing || this.state === 'down') return;
    this.state = 'down';
    this.log.warn(
      { err: reason },
      'rate-limit store: Redis unavailable; counting in memory (per instance) until it is back',
    );
  }

  private useRedis(): boolean {
    if (this.state !== 'down') return true;
    // Connected but answering errors: try again now and then (a reconnect ends "down" by itself).
    return this.redis.status === 'ready' && Date.now() >= this.retryAt;
  }

  private keys(key: string, window: number): [string, string] {
    return [`${this.prefix}${key}:${window}`, `${this.prefix}${key}:${window - 1}`];
  }

  /** `pool` matters only to the memory fallback: Redis holds every key until it expires. */
  async hit(
    key: string,
    window: number,
    windowMs: number,
    pool?: CounterPool,
  ): Promise<WindowCounts> {
    if (this.useRedis()) {
      try {
        const [current, previous] = (await this.redis.eval(
          HIT,
          2,
          ...this.keys(key, window),
          windowMs * 2,
        )) as [number, number];
        this.markUp();
        return { current: Number(current), previous: Number(previous) };
      } catch (error) {
        this.markDown((error as Error).message);
      }
    }
    return this.fallback.hit(key, window, windowMs, pool);
  }

  async unhit(key: string, window: number, pool?: CounterPool): Promise<void> {
    if (this.useRedis()) {
      try {
        await this.redis.eval(UNHIT, 1, this.keys(key, window)[0]);
        return;
      } catch (error) {
        this.markDown((error as Error).message);
      }
    }
    await this.fallback.unhit(key, window, pool);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.fallback.close();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * The requests seen in the last `windowMs` before `now`, estimated from two fixed windows: all of
 * the current one, and the previous one's count weighted by how much of it still overlaps.
 */
export function slidingCount(counts: WindowCounts, now: number, windowMs: number): number {
  const window = Math.floor(now / windowMs);
  const overlap = 1 - (now - window * windowMs) / windowMs;
  return counts.current + Math.floor(counts.previous * overlap);
}

export interface Limit {
  name: string;
  max: number;
  windowMs: number;
  /**
   * `account` when the subject is an account (a member id, an email) rather than a client's
   * address (the default): the memory store keeps those counters apart (MemoryCounterStore).
   */
  per?: CounterPool;
}

/**
 * Every request under /api/ counts against this, per client network (app.ts); so does each request
 * of a batch (batch/), as it would sent alone.
 */
export const API_LIMIT: Limit = { name: 'api', max: 300, windowMs: 10_000 };

/** The counter key of `subject` under `limit`: its name and a 22-character digest. */
export function counterKey(limit: Limit, subject: string): string {
  const digest = createHash('sha256').update(subject).digest('base64url').slice(0, 22);
  return `${limit.name}:${digest}`;
}

export class RateLimiter {
  constructor(private readonly store: CounterStore | undefined) {}

  /** False when RATE_LIMITS=off. */
  get enabled(): boolean {
    return this.store !== undefined;
  }

  /** Counts one hit for `subject` (an IP, a user id, an email) and throws 429 over the limit. */
  async check(limit: Limit, subject: string): Promise<void> {
    await this.attempt(limit, subject, { refusedCounts: true });
  }

  /**
   * Counts one hit for `subject` and throws 429 over the limit, not counting the refused hit
   * (unless `refusedCounts`). Returns a function that takes the hit back: counting first and
   * taking back what turns out not to count (a successful sign-in) keeps concurrent requests
   * from all slipping under the limit at once.
   */
  async attempt(
    limit: Limit,
    subject: string,
    options: { refusedCounts?: boolean } = {},
  ): Promise<() => Promise<void>> {
    const store = this.store;
    if (!store) return async () => {};
    const now = Date.now();
    const window = Math.floor(now / limit.windowMs);
    const key = counterKey(limit, subject);
    const counts = await store.hit(key, window, limit.windowMs, limit.per);
    const takeBack = () => store.unhit(key, window, limit.per);
    if (counts && slidingCount(counts, now, limit.windowMs) > limit.max) {
      if (!options.refusedCounts) await takeBack();
      throw new TooManyRequestsError();
    }
    return takeBack;
  }

  async close(): Promise<void> {
    await this.store?.close();
  }
}

/**
 * The subject a client's address is counted as: an IPv4 address as it is (also when written as
 * IPv4-mapped IPv6, `::ffff:a.b.c.d`), an IPv6 address by its /64, the block one subscriber gets,
 * so that one client cannot get a fresh budget from each of its many addresses.
 */
export function clientNetwork(ip: string): string {
  if (isIPv4(ip)) return ip;
  const address = ip.split('%')[0] ?? ip;
  if (!isIPv6(address)) return ip;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail split). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':'));
  const before = part(head);
  const after = tail === undefined ? [] : part(tail);
  const zeros = Array<string>(8 - before.length - after.length).fill('0');
  return [...before, ...zeros, ...after].map((g) => parseInt(g, 16));
}
