import { createContext } from 'react';
import type { FetchQueryOptions, QueryClient } from '@tanstack/react-query';

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

/**
 * Starts queries from a route's loader without holding the screen up: the client and the modules
 * that describe the queries load side by side, then each query starts (also on hover of a link).
 */
export async function prefetch(
  queries: Queries,
  // Each query's own types: options for a query of any data (their functions are not variant).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  ...options: ReadonlyArray<Promise<FetchQueryOptions<any, any, any, any>>>
): Promise<void> {
  const [client, ...wanted] = await Promise.all([queries(), ...options]);
  for (const query of wanted) void client.prefetchQuery(query);
}

/** The app's `Queries`, for `QueryScope` (the app provides it, `app.tsx`). */
export const QueriesContext = createContext<Queries | null>(null);
