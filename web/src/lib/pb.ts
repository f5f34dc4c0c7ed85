import PocketBase, { ClientResponseError, LocalAuthStore } from 'pocketbase';
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

/** Field error message from a PocketBase-style error body, if any. */
export function fieldError(err: unknown, field: string): string | undefined {
  if (!(err instanceof ClientResponseError)) return undefined;
  const data = err.response?.data as Record<string, { message?: unknown } | undefined> | undefined;
  const message = data?.[field]?.message;
  return typeof message === 'string' && message ? message : undefined;
}

/** Field error code from a PocketBase-style error body (`validation_…`), if any. */
export function fieldCode(err: unknown, field: string): string | undefined {
  if (!(err instanceof ClientResponseError)) return undefined;
  const data = err.response?.data as Record<string, { code?: unknown } | undefined> | undefined;
  const code = data?.[field]?.code;
  return typeof code === 'string' && code ? code : undefined;
}

/** The server's message, or undefined when there is none worth showing. */
export function errorMessage(err: unknown): string | undefined {
  if (err instanceof ClientResponseError) {
    const message = err.response?.message;
    return typeof message === 'string' && message ? message : undefined;
  }
  if (err instanceof Error && err.message) return err.message;
  return undefined;
}

export function errorStatus(err: unknown): number | undefined {
  return err instanceof ClientResponseError ? err.status : undefined;
}
