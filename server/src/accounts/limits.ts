import type { Limit } from '../core/rate-limit.js';

/** The account actions' abuse limits (per client IP unless the name says otherwise). */
export const ACCOUNT_LIMITS = {
  signIn: { name: 'login', max: 10, windowMs: 60_000 },
  signInPerEmail: { name: 'login-email', max: 10, windowMs: 15 * 60_000 },
  signUp: { name: 'signup', max: 10, windowMs: 60_000 },
  requestMail: { name: 'request-mail', max: 5, windowMs: 60_000 },
  confirm: { name: 'confirm', max: 10, windowMs: 60_000 },
} satisfies Record<string, Limit>;
