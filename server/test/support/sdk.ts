import { EventSource } from 'eventsource';
import PocketBase, { ClientResponseError } from 'pocketbase';
import { expect } from 'vitest';

/** The SDK's realtime needs a global EventSource, as in a browser (the `eventsource` package). */
export function installEventSource(): void {
  (globalThis as { EventSource?: unknown }).EventSource ??= EventSource;
}

/** The web app's client: the official SDK, auto-cancellation off, optionally signed in. */
export function sdkClient(url: string, token?: string, record?: Record<string, unknown>) {
  installEventSource();
  const pb = new PocketBase(url);
  pb.autoCancellation(false);
  if (token) pb.authStore.save(token, (record ?? null) as never);
  return pb;
}

/** The SDK's error for a call that must fail (the test fails when it succeeds). */
export async function sdkError(p: Promise<unknown>): Promise<ClientResponseError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ClientResponseError);
    return err as ClientResponseError;
  }
  throw new Error('expected the SDK call to fail');
}
