import { QueryClient, type DefaultOptions } from '@tanstack/react-query';
import { statusOf } from './api-error';

const MAX_RETRIES = 3;

/** A refused session (401) is not retried: the session's owner has already ended it. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  return statusOf(error) !== 401 && failureCount < MAX_RETRIES;
}

export const queryDefaults = {
  queries: {
    retry: shouldRetry,
    retryDelay: (attempt: number) => Math.min(1000 * 2 ** attempt, 30_000),
    gcTime: 5 * 60 * 1000,
  },
} satisfies DefaultOptions;

export function createQueryClient(overrides?: DefaultOptions): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { ...queryDefaults.queries, ...overrides?.queries },
      mutations: { ...overrides?.mutations },
    },
  });
}
