import { describe, expect, it } from 'vitest';
import { ACCOUNT_LIMITS } from '../../src/accounts/limits.js';
import { TooManyRequestsError } from '../../src/core/errors.js';
import {
  clientNetwork,
  MemoryCounterStore,
  RateLimiter,
  slidingCount,
  type CounterStore,
  type Limit,
} from '../../src/core/rate-limit.js';
import { PASSKEY_LIMITS } from '../../src/passkeys/limits.js';
import { PROVIDER_LIMITS } from '../../src/providers/limits.js';
import { TWO_STEP_LIMITS } from '../../src/two-step/limits.js';

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
    const silent: CounterStore = {
      hit: async () => undefined,
      unhit: async () => {},
      close: async () => {},
    };
    const failingOpen = new RateLimiter(silent);
    for (let i = 0; i < 10; i++) await failingOpen.check(limit, 'x');
  });
});

describe('memory counter store is bounded', () => {
  it('never holds more keys than its cap, dropping the oldest first', async () => {
    const store = new MemoryCounterStore(1000);
    try {
      let most = 0;
      for (let i = 0; i < 5000; i++) {
        await store.hit(`key-${i}`, 1, 60_000);
        most = Math.max(most, store.size);
      }
      expect(most).toBe(1000);
      const keys = store.keys();
      expect(keys[0]).toBe('key-4000');
      expect(keys.at(-1)).toBe('key-4999');
    } finally {
      await store.close();
    }
  });

  it('holds at most 100,000 keys by default', async () => {
    const store = new MemoryCounterStore();
    try {
      for (let i = 0; i < 100_500; i++) await store.hit(String(i), 1, 60_000);
      expect(store.size).toBe(100_000);
    } finally {
      await store.close();
    }
  });
});

describe('account counters survive a flood of address keys', () => {
  const perAddress = { name: 'api', max: 300, windowMs: 60_000 };
  const perAccount = {
    name: 'login-fail-email',
    max: 3,
    windowMs: 60_000,
    per: 'account' as const,
  };

  it('address keys past the cap push out only address keys: an account at its limit stays there', async () => {
    const store = new MemoryCounterStore(1000);
    const limiter = new RateLimiter(store);
    try {
      for (let i = 0; i < 3; i++) await limiter.check(perAccount, 'victim@example.com');
      // One request from each of 5,000 addresses: five times the cap.
      for (let i = 0; i < 5000; i++) {
        await limiter.check(perAddress, `198.51.${Math.floor(i / 256)}.${i % 256}`);
      }
      expect(store.keys('address')).toHaveLength(1000);
      await expect(limiter.check(perAccount, 'victim@example.com')).rejects.toBeInstanceOf(
        TooManyRequestsError,
      );
      // The oldest address keys went.
      await expect(limiter.check(perAddress, '198.51.0.0')).resolves.toBeUndefined();
    } finally {
      await limiter.close();
    }
  });

  it('account keys have a bounded pool of their own, oldest dropped first', async () => {
    const store = new MemoryCounterStore(100);
    try {
      await store.hit('api:one', 1, 60_000);
      for (let i = 0; i < 500; i++) await store.hit(`acct-${i}`, 1, 60_000, 'account');
      expect(store.keys('account')).toHaveLength(100);
      expect(store.keys('account')[0]).toBe('acct-400');
      // …and they push out no address key.
      expect(store.keys('address')).toEqual(['api:one']);
      // A hit taken back is taken from its own pool.
      await store.hit('acct-499', 1, 60_000, 'account');
      await store.unhit('acct-499', 1, 'account');
      expect(await store.hit('acct-499', 1, 60_000, 'account')).toEqual({
        current: 2,
        previous: 0,
      });
    } finally {
      await store.close();
    }
  });
});

describe('the limits counted per account say so', () => {
  it('sign-in failures, email change, avatar uploads and two-step password checks are per account; the rest per address', () => {
    const all = { ...ACCOUNT_LIMITS, ...TWO_STEP_LIMITS, ...PASSKEY_LIMITS, ...PROVIDER_LIMITS };
    const perAccount = Object.values(all as Record<string, Limit>)
      .filter((l) => l.per === 'account')
      .map((l) => l.name)
      .sort();
    expect(perAccount).toEqual(
      [
        'avatar-upload',
        'email-change-member',
        'login-fail',
        'login-fail-device',
        'login-fail-email',
        'two-step-password',
      ].sort(),
    );
  });
});

describe('counter keys are fixed-size digests', () => {
  it('a 60 KB subject becomes a key of the same size as a short one', async () => {
    const store = new MemoryCounterStore();
    const limiter = new RateLimiter(store);
    try {
      await limiter.check({ name: 'login-fail', max: 10, windowMs: 60_000 }, 'x'.repeat(60_000));
      await limiter.check({ name: 'login-fail', max: 10, windowMs: 60_000 }, 'a@example.com');
      const keys = store.keys();
      expect(keys).toHaveLength(2);
      for (const key of keys) expect(key).toMatch(/^login-fail:[\w-]{22}$/);
    } finally {
      await limiter.close();
    }
  });
});

describe('attempts that can be taken back', () => {
  const limit = { name: 'fail', max: 2, windowMs: 60_000 };

  it('a hit taken back does not count; a refused hit does not count either', async () => {
    const limiter = new RateLimiter(new MemoryCounterStore());
    try {
      const takeBack = await limiter.attempt(limit, 's');
      await takeBack();
      await limiter.attempt(limit, 's');
      await limiter.attempt(limit, 's');
      await expect(limiter.attempt(limit, 's')).rejects.toBeInstanceOf(TooManyRequestsError);
      await expect(limiter.attempt(limit, 's')).rejects.toBeInstanceOf(TooManyRequestsError);
    } finally {
      await limiter.close();
    }
  });

  it('concurrent attempts cannot all slip under the limit', async () => {
    const limiter = new RateLimiter(new MemoryCounterStore());
    try {
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, () => limiter.attempt(limit, 'p')),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    } finally {
      await limiter.close();
    }
  });
});

describe('client network: what per-address limits count', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:203.0.113.7', '203.0.113.7'],
    ['::ffff:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::ABCD', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
    ['not an address', 'not an address'],
  ])('%s → %s', (ip, network) => {
    expect(clientNetwork(ip)).toBe(network);
  });

  it('two addresses of one /64 are one network, of neighbouring /64s two', () => {
    expect(clientNetwork('2001:db8:a:b::1')).toBe(clientNetwork('2001:db8:a:b:ffff::2'));
    expect(clientNetwork('2001:db8:a:b::1')).not.toBe(clientNetwork('2001:db8:a:c::1'));
  });
});
