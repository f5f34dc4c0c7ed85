import type { UserRecord as UserRecordAnswer } from '../../../contract/records';

/**
 * Reads the session the SDK's LocalAuthStore persisted, without loading the SDK. Route guards use
 * it, so the first screen of a visitor does not have to download the client library. All writes
 * (sign-in, refresh, sign-out) go through the session's owner (`lib/auth.ts`) and the SDK.
 */

/** The SDK's LocalAuthStore default key. */
export const AUTH_STORAGE_KEY = 'pocketbase_auth';

/**
 * The signed-in member's own record, as the server's answers carry it (contract/records.ts). Its
 * `email` is there: the contract leaves it out only of other members' records whose owner hides it.
 */
export type UserRecord = UserRecordAnswer & { email: string };

export interface StoredSession {
  token: string;
  record: UserRecord | null;
}

export function readStoredSession(): StoredSession {
  let raw: string | null;
  try {
    raw = window.localStorage.getItem(AUTH_STORAGE_KEY);
  } catch {
    return { token: '', record: null };
  }
  if (!raw) return { token: '', record: null };
  try {
    const parsed = JSON.parse(raw) as { token?: unknown; record?: unknown; model?: unknown };
    const token = typeof parsed.token === 'string' ? parsed.token : '';
    const record = (parsed.record ?? parsed.model ?? null) as UserRecord | null;
    return { token, record: record && typeof record === 'object' ? record : null };
  } catch {
    return { token: '', record: null };
  }
}

/** A claim of a token's payload, read without checking it; undefined when it cannot be read. */
export function tokenClaim(token: string, name: 'exp' | 'refreshable'): unknown {
  try {
    const part = token.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    return (JSON.parse(json) as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}

/** Same rule as the SDK's isTokenExpired: a token without a future `exp` is not valid. */
export function isTokenExpired(token: string): boolean {
  const exp = tokenClaim(token, 'exp');
  return typeof exp !== 'number' || exp <= Date.now() / 1000;
}

/**
 * Whether the token (by default the stored session's) is an operator's view as a member
 * (docs/decisions/0056): the one auth-refresh does not renew (`refreshable: false`, PocketBase's
 * impersonate token).
 */
export function isViewAsSession(token = readStoredSession().token): boolean {
  return tokenClaim(token, 'refreshable') === false;
}

/** The signed-in, verified user of the stored session, or null. */
export function storedUser(): UserRecord | null {
  const { token, record } = readStoredSession();
  if (!token || isTokenExpired(token)) return null;
  return record && record.verified === true ? record : null;
}
