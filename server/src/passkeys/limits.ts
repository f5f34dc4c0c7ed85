import type { Limit } from '../core/rate-limit.js';

/** The passkey endpoints' abuse limits, per client IP (challenges are rows in the database). */
export const PASSKEY_LIMITS = {
  /** Sign-in options (a guest's request that stores a challenge). */
  loginOptions: { name: 'passkey-options', max: 20, windowMs: 60_000 },
  /** auth-with-passkey. */
  signIn: { name: 'passkey-login', max: 10, windowMs: 60_000 },
} satisfies Record<string, Limit>;
