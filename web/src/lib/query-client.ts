import { QueryClient, type DefaultOptions } from '@tanstack/react-query';
import { statusOf } from './api-error';

const MAX_RETRIES = 3;

/**
 * Only what may pass by itself is tried again: a network failure (no answer) or the server's own
 * trouble (5xx). An answer about the request (any 4xx: not found, a bad filter, not allowed, a
 * refused session, too many requests) is the same the next time: it shows at once instead of after
 * three retries' worth of waiting.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined && status >= 400 && status < 500) return false;
  return failureCount < MAX_RETRIES;
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
