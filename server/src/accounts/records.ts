import type { User } from '../db/schema.js';
import { USERS_COLLECTION_ID, USERS_COLLECTION_NAME } from './tokens.js';

/** A user as PocketBase shows a record; never the password hash or tokenKey. */
export function userRecord(user: User, options: { withEmail: boolean }) {
  const visibleEmail = options.withEmail || user.email_visibility === 1;
  return {
    id: user.id,
    collectionId: USERS_COLLECTION_ID,
    collectionName: USERS_COLLECTION_NAME,
    ...(visibleEmail ? { email: user.email } : {}),
    emailVisibility: user.email_visibility === 1,
    verified: user.verified === 1,
    isInitialUser: user.is_initial_user === 1,
    inviteCode: user.invite_code,
    created: user.created,
    updated: user.updated,
  };
}

/** Emails are trimmed and compared case-insensitively (stored lower-cased). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// The HTML living standard's definition of a valid email address (what <input type=email> checks).
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

export function isEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}
