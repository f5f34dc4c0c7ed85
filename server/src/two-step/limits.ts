import type { Limit } from '../core/rate-limit.js';

/**
 * Two-step sign-in's abuse limits. The real brake on guessing codes is the lock-out kept in the
 * database (5 wrong codes in a row lock the member's second step for 15 minutes: codes.ts); these
 * only bound the request rate.
 */
export const TWO_STEP_LIMITS = {
  /** auth-with-totp, per client address (an IPv6 client: its /64). */
  secondStep: { name: 'second-step', max: 10, windowMs: 60_000 },
  /** Password checks before turning two-step off or renewing recovery codes, per member. */
  password: { name: 'two-step-password', max: 10, windowMs: 15 * 60_000, per: 'account' },
} satisfies Record<string, Limit>;
