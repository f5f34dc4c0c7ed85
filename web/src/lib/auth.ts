import { readStoredSession, storedUser, type UserRecord } from './session';

/**
 * The session as the router sees it. `ready()` confirms a stored token once per page load with
 * auth-refresh (clearing the session when that fails, or when the account is not verified), so
 * guards decide on a confirmed session and a signed-in user never sees the login screen flash.
 * The SDK is only loaded here when there is a stored token to confirm.
 */
export interface Auth {
  ready(): Promise<void>;
  user(): UserRecord | null;
  isAuthenticated(): boolean;
}

async function confirmStoredSession(): Promise<void> {
  if (!readStoredSession().token) return;
  const { pb } = await import('./pb');
  if (!pb.authStore.isValid) {
    pb.authStore.clear();
    return;
  }
  try {
    const { record } = await pb.collection('users').authRefresh();
    if (!record.verified) pb.authStore.clear();
  } catch {
    pb.authStore.clear();
  }
}

export function createAuth(): Auth {
  let pending: Promise<void> | null = null;
  return {
    ready() {
      pending ??= confirmStoredSession();
      return pending;
    },
    user: storedUser,
    isAuthenticated: () => storedUser() !== null,
  };
}
