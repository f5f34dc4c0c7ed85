import PocketBase, { ClientResponseError, LocalAuthStore, type SendOptions } from 'pocketbase';
import { needsConfirmation, NOT_CONFIRMED_MESSAGE } from './api-error';
import { askToConfirm } from './reauth';
import { AUTH_STORAGE_KEY } from './session';

/** The one SDK client of the app. Same origin: the server hosts the app and the API. */
export const pb = new PocketBase('/', new LocalAuthStore(AUTH_STORAGE_KEY));
// The product's requests are never auto-cancelled (two screens may ask for the same thing).
pb.autoCancellation(false);

/** What the SDK answered, with the token the request carried ('' when it carried none). */
export type ResponseListener = (response: Response, data: unknown, sentToken: string) => void;

const responseListeners = new Set<ResponseListener>();

// The SDK has one `afterSend` hook; listeners share it. They may not change the answer.
pb.afterSend = (response: Response, data: unknown, options?: { headers?: unknown }) => {
  const headers = (options?.headers ?? {}) as Record<string, unknown>;
  const sent = typeof headers.Authorization === 'string' ? headers.Authorization : '';
  for (const listener of responseListeners) listener(response, data, sent);
  return data;
};

/** Calls `listener` after every API answer (the session's owner watches them: `lib/auth.ts`). */
export function onResponse(listener: ResponseListener): () => void {
  responseListeners.add(listener);
  return () => responseListeners.delete(listener);
}

/**
 * Runs `request`; when the server answers "Confirm it's you to continue.", asks the member
 * (`lib/reauth.ts`) and runs it again once they have confirmed, as often as the server asks.
 * Cancel rejects with `NOT_CONFIRMED_MESSAGE` (a 403 marked as aborted); with no dialog to ask
 * the server's refusal stands.
 */
export async function confirmed<T>(request: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await request();
    } catch (err) {
      const asked = needsConfirmation(err) ? askToConfirm() : null;
      // The dialog could not open (its code did not load): the server's refusal stands.
      const answer = asked ? await asked.catch(() => null) : null;
      if (answer === null) throw err;
      if (!answer) {
        throw new ClientResponseError({
          url: (err as ClientResponseError).url,
          status: 403,
          isAbort: true,
          response: { status: 403, message: NOT_CONFIRMED_MESSAGE, data: {} },
        });
      }
    }
  }
}

/**
 * The code a provider's popup hands back is good for one request: a connection refused for a
 * confirmation is not sent again with it, but started over (`auth.connectProvider`).
 */
const ONCE_ONLY = '/auth-with-oauth2';

const sendOnce = pb.send.bind(pb);
// Every request of the app (the SDK's record methods send through here too) gets the dialog.
pb.send = <T = unknown>(path: string, options: SendOptions): Promise<T> =>
  path.endsWith(ONCE_ONLY)
    ? sendOnce<T>(path, options)
    : confirmed(() => sendOnce<T>(path, options));
