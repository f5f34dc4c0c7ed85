import { Redis } from 'ioredis';
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
 */

export interface WindowCounts {
  current: number;
  previous: number;
}

export interface CounterStore {
  /** Adds one hit to window `window` of `key`; returns its count and window `window - 1`'s. */
  hit(key: string, window: number, windowMs: number): Promise<WindowCounts | undefined>;
  close(): Promise<void>;
}

export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<
    string,
    { window: number; count: number; previous: number; expires: number }
  >();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async hit(key: string, window: number, windowMs: number): Promise<WindowCounts> {
    let entry = this.counters.get(key);
    if (!entry) {
      entry = { window, count: 0, previous: 0, expires: 0 };
      this.counters.set(key, entry);
    } else if (entry.window !== window) {
      entry.previous = entry.window === window - 1 ? entry.count : 0;
      entry.window = window;
      entry.count = 0;
    }
    entry.count += 1;
    entry.expires = (window + 2) * windowMs;
    return { current: entry.count, previous: entry.previous };
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.counters) if (entry.expires <= now) this.counters.delete(key);
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

export class RedisCounterStore implements CounterStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly log: Logger,
    private readonly prefix = 'gatehouse:rl:',
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.redis.on('error', (err) => this.log.warn({ err: err.message }, 'redis error'));
  }

  async hit(key: string, window: number, windowMs: number): Promise<WindowCounts | undefined> {
    try {
      const keys = [`${this.prefix}${key}:${window}`, `${this.prefix}${key}:${window - 1}`];
      const [current, previous] = (await this.redis.eval(HIT, 2, ...keys, windowMs * 2)) as [
        number,
        number,
      ];
      return { current: Number(current), previous: Number(previous) };
    } catch (error) {
      // Fail open: an unreachable Redis must not take the whole API down with it.
      this.log.warn({ err: (error as Error).message }, 'rate-limit store unavailable; allowing');
      return undefined;
    }
  }

  async close(): Promise<void> {
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
}

export class RateLimiter {
  constructor(private readonly store: CounterStore | undefined) {}

  /** False when RATE_LIMITS=off. */
  get enabled(): boolean {
    return this.store !== undefined;
  }

  /** Counts one hit for `subject` (an IP, a user id, an email) and throws 429 over the limit. */
  async check(limit: Limit, subject: string): Promise<void> {
    if (!this.store) return;
    const now = Date.now();
    const window = Math.floor(now / limit.windowMs);
    const counts = await this.store.hit(`${limit.name}:${subject}`, window, limit.windowMs);
    if (!counts) return;
    if (slidingCount(counts, now, limit.windowMs) > limit.max) throw new TooManyRequestsError();
  }

  async close(): Promise<void> {
    await this.store?.close();
  }
}
