import type { Limit } from '../core/rate-limit.js';

/** The account actions' abuse limits (per client IP unless the name says otherwise: per email, per member). */
export const ACCOUNT_LIMITS = {
  signIn: { name: 'login', max: 10, windowMs: 60_000 },
  signInPerEmail: { name: 'login-email', max: 10, windowMs: 15 * 60_000 },
  signUp: { name: 'signup', max: 10, windowMs: 60_000 },
  requestMail: { name: 'request-mail', max: 5, windowMs: 60_000 },
  confirm: { name: 'confirm', max: 10, windowMs: 60_000 },
  emailChange: { name: 'email-change-member', max: 5, windowMs: 60 * 60_000 },
} satisfies Record<string, Limit>;
