import { useSyncExternalStore } from 'react';
import { useRouteContext } from '@tanstack/react-router';
import { readStoredSession, storedUser, type UserRecord } from './session';

/**
 * The session's one owner, on the router context as `auth`: guards, loaders and screens ask it who
 * is signed in, and only it signs in and out (`pb.authStore` is written nowhere else).
 *
 * `ready()` confirms a stored token once per page load with auth-refresh (ending the session when
 * that fails, or when the account is not verified), so guards decide on a confirmed session and a
 * signed-in user never sees the login screen flash. The SDK is loaded on first use only, so the
 * first screen of a visitor does not download it.
 */
export interface Auth {
  ready(): Promise<void>;
  /** The signed-in, verified user; the same object while the session does not change. */
  user(): UserRecord | null;
  isAuthenticated(): boolean;
  /** Signs in. An unverified account gets no session and `unverified` is returned. */
  signIn(email: string, password: string): Promise<'ok' | 'unverified'>;
  signOut(): Promise<void>;
  /** Calls `onChange` whenever the session changes (in this tab or another). */
  subscribe(onChange: () => void): () => void;
}

const loadClient = () => import('./pb');

async function endSession(): Promise<void> {
  const { pb } = await loadClient();
  pb.authStore.clear();
}

async function confirmStoredSession(): Promise<void> {
  if (!readStoredSession().token) return;
  const { pb } = await loadClient();
  let confirmed = false;
  if (pb.authStore.isValid) {
    try {
      const { record } = await pb.collection('users').authRefresh<UserRecord>();
      confirmed = record.verified;
    } catch {
      // A revoked or unknown token: the session ends below.
    }
  }
  if (!confirmed) await endSession();
}

export function createAuth(): Auth {
  let pending: Promise<void> | null = null;
  let cached: { key: string; user: UserRecord | null } = { key: '', user: null };

  function user(): UserRecord | null {
    const current = storedUser();
    const key = current ? JSON.stringify(current) : '';
    if (key !== cached.key) cached = { key, user: current };
    return cached.user;
  }

  return {
    ready() {
      pending ??= confirmStoredSession();
      return pending;
    },
    user,
    isAuthenticated: () => user() !== null,
    async signIn(email, password) {
      const { pb } = await loadClient();
      const { record } = await pb
        .collection('users')
        .authWithPassword<UserRecord>(email.trim(), password);
      if (record.verified) return 'ok';
      await endSession();
      return 'unverified';
    },
    signOut: endSession,
    subscribe(onChange) {
      let unsubscribe: (() => void) | undefined;
      let closed = false;
      void loadClient().then(({ pb }) => {
        if (closed) return;
        unsubscribe = pb.authStore.onChange(onChange);
        // A change made while the SDK was loading is picked up now.
        onChange();
      });
      return () => {
        closed = true;
        unsubscribe?.();
      };
    },
  };
}

/** The router context's `auth`, for screens. */
export function useAuth(): Auth {
  return useRouteContext({ from: '__root__', select: (context) => context.auth });
}

/** The signed-in, verified user, re-rendering when the session changes. */
export function useCurrentUser(): UserRecord | null {
  const auth = useAuth();
  return useSyncExternalStore(auth.subscribe, auth.user, () => null);
}
