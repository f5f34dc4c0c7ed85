import PocketBase, { ClientResponseError, LocalAuthStore } from 'pocketbase';
import { AUTH_STORAGE_KEY } from './session';

/** The one SDK client of the app. Same origin: the server hosts the app and the API. */
export const pb = new PocketBase('/', new LocalAuthStore(AUTH_STORAGE_KEY));
// The product's requests are never auto-cancelled (two screens may ask for the same thing).
pb.autoCancellation(false);

/** Field error message from a PocketBase-style error body, if any. */
export function fieldError(err: unknown, field: string): string | undefined {
  if (!(err instanceof ClientResponseError)) return undefined;
  const data = err.response?.data as Record<string, { message?: unknown } | undefined> | undefined;
  const message = data?.[field]?.message;
  return typeof message === 'string' && message ? message : undefined;
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
