import { QueryClient, type DefaultOptions } from '@tanstack/react-query';

export const queryDefaults = {
  queries: {
    retry: 3,
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
