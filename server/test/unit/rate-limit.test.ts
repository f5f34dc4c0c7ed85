import { describe, expect, it } from 'vitest';
import { TooManyRequestsError } from '../../src/core/errors.js';
import {
  MemoryCounterStore,
  RateLimiter,
  slidingCount,
  type CounterStore,
} from '../../src/core/rate-limit.js';

describe('sliding-window count', () => {
  const windowMs = 60_000;

  it('at the start of a window the previous window counts in full', () => {
    expect(slidingCount({ current: 1, previous: 10 }, 60_000, windowMs)).toBe(11);
  });

  it('halfway through, half of the previous window still counts (rounded down)', () => {
    expect(slidingCount({ current: 2, previous: 9 }, 90_000, windowMs)).toBe(2 + 4);
  });

  it('at the very end, only the current window counts', () => {
    expect(slidingCount({ current: 3, previous: 10 }, 119_999, windowMs)).toBe(3);
  });
});

describe('memory counter store', () => {
  it('counts hits per key and window, and carries the last window over as previous', async () => {
    const store = new MemoryCounterStore();
    try {
      expect(await store.hit('k', 5, 1000)).toEqual({ current: 1, previous: 0 });
      expect(await store.hit('k', 5, 1000)).toEqual({ current: 2, previous: 0 });
      expect(await store.hit('other', 5, 1000)).toEqual({ current: 1, previous: 0 });
      expect(await store.hit('k', 6, 1000)).toEqual({ current: 1, previous: 2 });
      // A gap of more than one window forgets the old count.
      expect(await store.hit('k', 8, 1000)).toEqual({ current: 1, previous: 0 });
    } finally {
      await store.close();
    }
  });
});

describe('rate limiter', () => {
  const limit = { name: 'test', max: 3, windowMs: 60_000 };

  it('lets `max` hits through, refuses the next with TooManyRequestsError', async () => {
    const limiter = new RateLimiter(new MemoryCounterStore());
    try {
      for (let i = 0; i < 3; i++) await limiter.check(limit, '203.0.113.7');
      await expect(limiter.check(limit, '203.0.113.7')).rejects.toBeInstanceOf(
        TooManyRequestsError,
      );
      // Another subject has its own budget.
      await expect(limiter.check(limit, '203.0.113.8')).resolves.toBeUndefined();
    } finally {
      await limiter.close();
    }
  });

  it('lets everything through when limits are off, or when the store cannot answer', async () => {
    const off = new RateLimiter(undefined);
    expect(off.enabled).toBe(false);
    for (let i = 0; i < 10; i++) await off.check(limit, 'x');
    const silent: CounterStore = { hit: async () => undefined, close: async () => {} };
    const failingOpen = new RateLimiter(silent);
    for (let i = 0; i < 10; i++) await failingOpen.check(limit, 'x');
  });
});
