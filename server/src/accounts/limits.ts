import type { Limit } from '../core/rate-limit.js';

/**
 * The account actions' abuse limits, per client network (an IPv4 address or an IPv6 /64) unless
 * marked `per: 'account'`: email change is per member, and sign-in failures are counted per email
 * from one network and per email from everywhere with a wider ceiling, so guessing stops without
 * letting anyone lock an owner out from elsewhere
 * (docs/decisions/0012-sign-in-limits-without-lock-out.md). A browser with the member's device
 * cookie is not held by that ceiling, which anyone can fill: its failures count per device instead
 * (accounts/device-cookie.ts, docs/decisions/0049-device-cookies-and-the-per-email-ceiling.md).
 */
export const ACCOUNT_LIMITS = {
  signIn: { name: 'login', max: 10, windowMs: 60_000 },
  signInFailuresPerEmailAndNetwork: {
    name: 'login-fail',
    max: 10,
    windowMs: 15 * 60_000,
    per: 'account',
  },
  signInFailuresPerEmail: {
    name: 'login-fail-email',
    max: 100,
    windowMs: 15 * 60_000,
    per: 'account',
  },
  /** Failures with a device cookie, for its member's email, instead of the per-email ceiling. */
  signInFailuresPerDevice: {
    name: 'login-fail-device',
    max: 10,
    windowMs: 15 * 60_000,
    per: 'account',
  },
  signUp: { name: 'signup', max: 10, windowMs: 60_000 },
  requestMail: { name: 'request-mail', max: 5, windowMs: 60_000 },
  confirm: { name: 'confirm', max: 10, windowMs: 60_000 },
  emailChange: { name: 'email-change-member', max: 5, windowMs: 60 * 60_000, per: 'account' },
  /** Each avatar is decoded and encoded again (accounts/profile.ts): CPU, bounded per member. */
  avatarUpload: { name: 'avatar-upload', max: 30, windowMs: 60 * 60_000, per: 'account' },
} satisfies Record<string, Limit>;
