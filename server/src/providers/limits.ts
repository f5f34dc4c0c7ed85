import type { Limit } from '../core/rate-limit.js';

/** The provider endpoints' abuse limits (each sign-in costs calls to the provider). */
export const PROVIDER_LIMITS = {
  /** auth-with-oauth2, per client network. */
  signIn: { name: 'oauth2-login', max: 10, windowMs: 60_000 },
} satisfies Record<string, Limit>;
