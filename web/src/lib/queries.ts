import { createContext } from 'react';
import type { QueryClient } from '@tanstack/react-query';

/**
 * The query client, made the first time a screen or a route asks for it. TanStack Query (about
 * 10 KB gzip) serves the signed-in screens only: a visitor's first screen never loads it
 * (docs/decisions/0071). Routes start their queries with `context.queries()`; components inside
 * `QueryScope` (components/query-scope.tsx) use Query's hooks as usual.
 */
export type Queries = () => Promise<QueryClient>;

export function lazyQueries(
  make: () => QueryClient | Promise<QueryClient> = () =>
    import('./query-client').then((m) => m.createQueryClient()),
): Queries {
  let client: Promise<QueryClient> | undefined;
  return () => (client ??= Promise.resolve(make()));
}

/** The app's `Queries`, for `QueryScope` (the app provides it, `app.tsx`). */
export const QueriesContext = createContext<Queries | null>(null);
