import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ApiError } from './errors.js';

/**
 * Fixed-window counters for the abuse limits of contract §2. In memory for one process, in Redis
 * (REDIS_URL) when several instances must share them. A request may count against several limits
 * at once (the /api-wide one, its endpoint's, and per account), which is why this is a small
 * limiter of our own rather than a per-route plugin (docs/decisions/0004-rate-limits.md).
 */

export interface CounterStore {
  /** Adds one hit to `key` in the current window and returns the window's count. */
  hit(key: string, windowMs: number): Promise<number>;
  close(): Promise<void>;
}

export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async hit(key: string, windowMs: number): Promise<number> {
    const now = Date.now();
    const entry = this.counters.get(key);
    if (!entry || entry.resetAt <= now) {
      this.counters.set(key, { count: 1, resetAt: now + windowMs });
      return 1;
    }
    entry.count += 1;
    return entry.count;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.counters) if (entry.resetAt <= now) this.counters.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

const INCR_WITH_EXPIRY = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

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

  async hit(key: string, windowMs: number): Promise<number> {
    try {
      const count = await this.redis.eval(INCR_WITH_EXPIRY, 1, this.prefix + key, windowMs);
      return Number(count);
    } catch (error) {
      // Fail open: an unreachable Redis must not take the whole API down with it.
      this.log.warn({ err: (error as Error).message }, 'rate-limit store unavailable; allowing');
      return 0;
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export interface Limit {
  name: string;
  max: number;
  windowMs: number;
}

/** The limits of contract §2. */
export const LIMITS = {
  api: { name: 'api', max: 300, windowMs: 10_000 },
  login: { name: 'login', max: 10, windowMs: 60_000 },
  loginPerEmail: { name: 'login-email', max: 10, windowMs: 15 * 60_000 },
  signUp: { name: 'signup', max: 10, windowMs: 60_000 },
  requestMail: { name: 'request-mail', max: 5, windowMs: 60_000 },
  confirm: { name: 'confirm', max: 10, windowMs: 60_000 },
  generate: { name: 'generate', max: 10, windowMs: 60_000 },
} satisfies Record<string, Limit>;

export class RateLimiter {
  constructor(private readonly store: CounterStore | undefined) {}

  get enabled(): boolean {
    return this.store !== undefined;
  }

  /** Counts one hit for `subject` (an IP, a user id, an email) and throws 429 over the limit. */
  async check(limit: Limit, subject: string): Promise<void> {
    if (!this.store) return;
    const window = Math.floor(Date.now() / limit.windowMs);
    const count = await this.store.hit(`${limit.name}:${window}:${subject}`, limit.windowMs);
    if (count > limit.max) throw new ApiError(429);
  }

  async close(): Promise<void> {
    await this.store?.close();
  }
}
