import { useSyncExternalStore } from 'react';
import { useRouteContext } from '@tanstack/react-router';
import type PocketBase from 'pocketbase';
import type { AuthAnswer } from '../../../contract/records';
import { endReasonOf, mfaIdOf, type SessionEndReason } from './api-error';
import { readStoredSession, storedUser, type UserRecord } from './session';

/**
 * The session's one owner, on the router context as `auth`: guards, loaders and screens ask it who
 * is signed in, and only it signs in and out (`pb.authStore` is written nowhere else, but by
 * `lib/view-as.ts` while an operator views as a member, docs/decisions/0056).
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
   * Signs in with the password. An unverified account gets no session and `unverified` is returned. A member with
   * two-step sign-in on gets no session yet: `second-step` with the `mfaId` that
   * `completeSecondStep` needs.
   */
  signIn(email: string, password: string): Promise<SignInResult>;
  /**
   * Sign-in with a code sent by email (PocketBase's OTP): asks the server to mail a code to
   * `email` (the SDK's `requestOTP`) and returns the `otpId` that `signInWithCode` needs. The
   * server answers alike whether or not the address has an account. Throws the server's error
   * (400 `data.email`; 429).
   */
  requestSignInCode(email: string): Promise<string>;
  /**
   * The code from that mail (the SDK's `authWithOTP`). Results as `signIn`. Throws the server's
   * error (400: a wrong, expired or used code; 429: too many tries; 403: a disabled account).
   */
  signInWithCode(otpId: string, code: string): Promise<SignInResult>;
  /**
   * The second step of a sign-in: a code from the authenticator app or a recovery code
   * (`POST /api/gatehouse/auth-with-totp`). Throws the server's error (400 `data.code`: wrong
   * code; 400 `data.mfaId`: start again; 429: locked).
   */
  completeSecondStep(mfaId: string, code: string): Promise<'ok' | Unverified>;
  /**
   * Signs in with a passkey: `response` is what the browser's WebAuthn prompt answered (as
   * `@simplewebauthn/browser` shapes it), sent to `POST /api/gatehouse/auth-with-passkey`. The
   * server decides whether that is the whole sign-in (a passkey is possession plus user
   * verification): its 401 with an `mfaId` asks for the second step all the same. An unverified
   * account gets no session. Throws the server's error (400 `data.response`: a passkey it does not
   * accept; 429).
   */
  signInWithPasskey(response: unknown): Promise<'ok' | Unverified | SecondStep>;
  /**
   * Signs in with a provider through the SDK's own flow (`authWithOAuth2`: a popup at the
   * provider, the code back over realtime); with `createData.inviteCode` a new identity signs up.
   * Results as `signIn`; throws the SDK's error otherwise (a closed popup, the server's 400).
   */
  signInWithProvider(
    provider: string,
    createData?: { inviteCode: string; language: string },
  ): Promise<SignInResult>;
  /**
   * Connects a provider to the signed-in member: the same flow with this session's token, which
   * the server answers with a fresh token for this same session. A session that has to confirm
   * it's them first does so (`lib/reauth.ts`), then the flow starts over (its code is good once).
   */
  connectProvider(provider: string): Promise<void>;
  /**
   * "Confirm it's you" for a member whose way in is a provider: signing in again with a provider
   * already connected confirms this session, and the server answers a token for it.
   */
  confirmWithProvider(provider: string): Promise<void>;
  /** Ends the session on the server (`POST /api/gatehouse/logout`), then here, even if that fails. */
  signOut(): Promise<void>;
  /** Calls `onChange` whenever the session changes (in this tab or another). */
  subscribe(onChange: () => void): () => void;
  /**
   * Calls `onExpired` after a signed-in request was refused with 401 (the session was ended
   * elsewhere); the local session has already been ended.
   */
  onSessionExpired(onExpired: () => void): () => void;
  /**
   * Why this page's last session ended elsewhere, as the server said (docs/api.md): the login
   * screen says so. null when it did not say, or once someone signed in again.
   */
  endReason(): SessionEndReason | null;
}

export type SignInResult = 'ok' | 'unverified' | SecondStep;
/** The server wants the second step of this sign-in (`completeSecondStep`). */
export interface SecondStep {
  step: 'second-step';
  mfaId: string;
}
/** The account is not verified yet: no session; the login screen shows its notice for `email`. */
export interface Unverified {
  step: 'unverified';
  email: string;
}

/** A sign-in's answer (contract/records.ts): a token, and the member's own record. */
type SignInAnswer = AuthAnswer & { record: UserRecord };

/** The header with this device's new token after a password change (docs/api.md). */
export const FRESH_TOKEN_HEADER = 'X-Gatehouse-Token';

const expiredListeners = new Set<() => void>();
/** Requests of the session's owner itself (refresh, logout) that handle their own 401. */
let ownRequests = 0;
let watching = false;
/** Why the last session ended elsewhere (the 401's `reason`), until the next sign-in. */
let lastEndReason: SessionEndReason | null = null;

const loadClient = async () => {
  const client = await import('./pb');
  if (!watching) {
    watching = true;
    client.onResponse((response, data, sentToken) =>
      watchAnswer(client.pb, response, data, sentToken),
    );
    client.pb.authStore.onChange(() => followSession(client.pb));
    followSession(client.pb);
  }
  return client;
};

/** The session's end, told by the server: the local session ends and the listeners hear it. */
function sessionEnded(pb: PocketBase, reason: SessionEndReason | null = null) {
  lastEndReason = reason;
  pb.authStore.clear();
  for (const listener of [...expiredListeners]) listener();
}

/**
 * Realtime (docs/decisions/0035): while signed in, the tab follows its own record on
 * `users/{id}`. An update is stored; `delete` (the account ended) ends the session. The server
 * ends the stream of a session that ended elsewhere (Sign Out on another device, a password or
 * email change); the SDK reconnects at once, and on every reconnect the session is confirmed with
 * auth-refresh, whose 401 ends it here through `watchAnswer`.
 */
let following: { userId: string; stop: () => void } | null = null;

function followSession(pb: PocketBase) {
  const userId = pb.authStore.isValid ? (pb.authStore.record?.id ?? '') : '';
  if (following?.userId === userId) return;
  if (userId) lastEndReason = null;
  following?.stop();
  following = null;
  // No EventSource (an old browser, component tests): the 401 rule alone applies.
  if (!userId || typeof EventSource === 'undefined') return;
  const entry = { userId, stop: () => {} };
  following = entry;
  let connects = 0;
  const subscriptions = Promise.all([
    pb.realtime.subscribe('PB_CONNECT', () => {
      connects += 1;
      if (connects > 1 && pb.authStore.isValid) {
        pb.collection('users')
          .authRefresh()
          .catch(() => {});
      }
    }),
    pb.realtime.subscribe(`users/${userId}`, (event: { action?: string; record?: unknown }) => {
      if (pb.authStore.record?.id !== userId) return;
      if (event.action === 'delete') return sessionEnded(pb);
      const record = event.record as Partial<UserRecord> | undefined;
      if (event.action === 'update' && record?.id === userId) {
        pb.authStore.save(pb.authStore.token, { ...pb.authStore.record, ...record });
      }
    }),
  ]);
  entry.stop = () => {
    void subscriptions.then((offs) => offs.forEach((off) => void off())).catch(() => {});
  };
  // Realtime unavailable: the 401 rule still ends a session on the next request.
  subscriptions.catch(() => {});
}

function watchAnswer(pb: PocketBase, response: Response, data: unknown, sentToken: string) {
  // Only answers to this session's own requests count (not a guest's, not an older session's).
  if (!sentToken || sentToken !== pb.authStore.token) return;
  if (response.status === 401) {
    if (ownRequests > 0) return;
    sessionEnded(pb, endReasonOf(data) ?? null);
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
  // A stored token past its end: the session expired while the page was closed.
  if (!pb.authStore.isValid) lastEndReason = 'expired';
  if (pb.authStore.isValid) {
    try {
      const { record } = await ownRequest(() => pb.collection('users').authRefresh<UserRecord>());
      confirmed = record.verified;
    } catch (err) {
      // A revoked or unknown token: the session ends below, saying why when the server did.
      lastEndReason = endReasonOf(err) ?? null;
    }
  }
  if (!confirmed) await endSession();
}

export function createAuth(): Auth {
  lastEndReason = null;
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
    async requestSignInCode(email) {
      const { pb } = await loadClient();
      const { otpId } = await pb.collection('users').requestOTP(email.trim());
      return otpId;
    },
    async signInWithCode(otpId, code) {
      const { pb } = await loadClient();
      let record: UserRecord;
      try {
        ({ record } = await pb.collection('users').authWithOTP<UserRecord>(otpId, code.trim()));
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
      const { token, record } = await pb.send<SignInAnswer>('/api/gatehouse/auth-with-totp', {
        method: 'POST',
        body: { mfaId, code: code.trim() },
      });
      if (!record.verified) return { step: 'unverified', email: record.email };
      pb.authStore.save(token, record);
      return 'ok';
    },
    async signInWithPasskey(response) {
      const { pb } = await loadClient();
      let answer: SignInAnswer;
      try {
        answer = await pb.send('/api/gatehouse/auth-with-passkey', {
          method: 'POST',
          body: { response },
        });
      } catch (err) {
        const mfaId = mfaIdOf(err);
        if (mfaId) return { step: 'second-step', mfaId };
        throw err;
      }
      if (!answer.record.verified) return { step: 'unverified', email: answer.record.email };
      pb.authStore.save(answer.token, answer.record);
      return 'ok';
    },
    async signInWithProvider(provider, createData) {
      const { pb } = await loadClient();
      let record: UserRecord;
      try {
        ({ record } = await pb
          .collection('users')
          .authWithOAuth2<UserRecord>({ provider, ...(createData ? { createData } : {}) }));
      } catch (err) {
        const mfaId = mfaIdOf(err);
        if (mfaId) return { step: 'second-step', mfaId };
        throw err;
      }
      if (record.verified) return 'ok';
      await endSession();
      return 'unverified';
    },
    async connectProvider(provider) {
      const { pb, confirmed } = await loadClient();
      await confirmed(() => pb.collection('users').authWithOAuth2<UserRecord>({ provider }));
    },
    async confirmWithProvider(provider) {
      const { pb } = await loadClient();
      await pb.collection('users').authWithOAuth2<UserRecord>({ provider });
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
    endReason: () => lastEndReason,
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
