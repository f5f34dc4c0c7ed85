import { useSyncExternalStore } from 'react';
import { useRouteContext } from '@tanstack/react-router';
import type PocketBase from 'pocketbase';
import { readStoredSession, storedUser, type UserRecord } from './session';

/**
 * The session's one owner, on the router context as `auth`: guards, loaders and screens ask it who
 * is signed in, and only it signs in and out (`pb.authStore` is written nowhere else).
 *
 * `ready()` confirms a stored token once per page load with auth-refresh (ending the session when
 * that fails, or when the account is not verified), so guards decide on a confirmed session and a
 * signed-in user never sees the login screen flash. The SDK is loaded on first use only, so the
 * first screen of a visitor does not download it.
 *
 * It also watches every answer of the API (the SDK's `afterSend`, see `lib/pb.ts`): a request made
 * with the current token that gets 401 means the session ended elsewhere, so the local one ends
 * too and `onSessionExpired` listeners are told (the app then leaves signed-in screens); a fresh
 * token in `X-Gatehouse-Token` (after a password change) replaces the stored one.
 */
export interface Auth {
  ready(): Promise<void>;
  /** The signed-in, verified user; the same object while the session does not change. */
  user(): UserRecord | null;
  isAuthenticated(): boolean;
  /**
   * Signs in. An unverified account gets no session and `unverified` is returned. A member with
   * two-step sign-in on gets no session yet: `second-step` with the `mfaId` that
   * `completeSecondStep` needs.
   */
  signIn(email: string, password: string): Promise<SignInResult>;
  /**
   * The second step of a sign-in: a code from the authenticator app or a recovery code
   * (`POST /api/gatehouse/auth-with-totp`). Throws the server's error (400 `data.code`: wrong
   * code; 400 `data.mfaId`: start again; 429: locked).
   */
  completeSecondStep(mfaId: string, code: string): Promise<'ok' | 'unverified'>;
  /** Ends the session on the server (`POST /api/gatehouse/logout`), then here, even if that fails. */
  signOut(): Promise<void>;
  /** Calls `onChange` whenever the session changes (in this tab or another). */
  subscribe(onChange: () => void): () => void;
  /**
   * Calls `onExpired` after a signed-in request was refused with 401 (the session was ended
   * elsewhere); the local session has already been ended.
   */
  onSessionExpired(onExpired: () => void): () => void;
}

export type SignInResult = 'ok' | 'unverified' | { step: 'second-step'; mfaId: string };

/** The `mfaId` of auth-with-password's 401 for a member with two-step sign-in on, if it is one. */
// Checked by shape: this module stays free of the SDK until it is first used.
function mfaIdOf(err: unknown): string | null {
  const failure = err as { status?: unknown; response?: { mfaId?: unknown } } | null;
  if (failure?.status !== 401) return null;
  const mfaId = failure.response?.mfaId;
  return typeof mfaId === 'string' && mfaId ? mfaId : null;
}

/** The header with this device's new token after a password change (docs/api.md). */
export const FRESH_TOKEN_HEADER = 'X-Gatehouse-Token';

const expiredListeners = new Set<() => void>();
/** Requests of the session's owner itself (refresh, logout) that handle their own 401. */
let ownRequests = 0;
let watching = false;

const loadClient = async () => {
  const client = await import('./pb');
  if (!watching) {
    watching = true;
    client.onResponse((response, data, sentToken) =>
      watchAnswer(client.pb, response, data, sentToken),
    );
  }
  return client;
};

function watchAnswer(pb: PocketBase, response: Response, data: unknown, sentToken: string) {
  // Only answers to this session's own requests count (not a guest's, not an older session's).
  if (!sentToken || sentToken !== pb.authStore.token) return;
  if (response.status === 401) {
    if (ownRequests > 0) return;
    pb.authStore.clear();
    for (const listener of [...expiredListeners]) listener();
    return;
  }
  const fresh = response.ok ? response.headers.get(FRESH_TOKEN_HEADER) : null;
  if (!fresh) return;
  const current = pb.authStore.record;
  const answered = data && typeof data === 'object' ? (data as Partial<UserRecord>) : null;
  const record = current && answered?.id === current.id ? { ...current, ...answered } : current;
  pb.authStore.save(fresh, record);
}

async function ownRequest<T>(request: () => Promise<T>): Promise<T> {
  ownRequests += 1;
  try {
    return await request();
  } finally {
    ownRequests -= 1;
  }
}

async function endSession(): Promise<void> {
  const { pb } = await loadClient();
  pb.authStore.clear();
}

async function signOut(): Promise<void> {
  const { pb } = await loadClient();
  if (pb.authStore.isValid) {
    try {
      await ownRequest(() => pb.send('/api/gatehouse/logout', { method: 'POST' }));
    } catch {
      // Unreachable server, or a session already ended: it ends here all the same.
    }
  }
  pb.authStore.clear();
}

async function confirmStoredSession(): Promise<void> {
  if (!readStoredSession().token) return;
  const { pb } = await loadClient();
  let confirmed = false;
  if (pb.authStore.isValid) {
    try {
      const { record } = await ownRequest(() => pb.collection('users').authRefresh<UserRecord>());
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
      let record: UserRecord;
      try {
        ({ record } = await pb
          .collection('users')
          .authWithPassword<UserRecord>(email.trim(), password));
      } catch (err) {
        const mfaId = mfaIdOf(err);
        if (mfaId) return { step: 'second-step', mfaId };
        throw err;
      }
      if (record.verified) return 'ok';
      await endSession();
      return 'unverified';
    },
    async completeSecondStep(mfaId, code) {
      const { pb } = await loadClient();
      const { token, record } = await pb.send<{ token: string; record: UserRecord }>(
        '/api/gatehouse/auth-with-totp',
        { method: 'POST', body: { mfaId, code: code.trim() } },
      );
      if (!record.verified) return 'unverified';
      pb.authStore.save(token, record);
      return 'ok';
    },
    signOut,
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
    onSessionExpired(onExpired) {
      expiredListeners.add(onExpired);
      return () => {
        expiredListeners.delete(onExpired);
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
