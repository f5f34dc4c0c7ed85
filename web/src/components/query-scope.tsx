import { lazy, type ReactNode } from 'react';

const QueryProvider = lazy(() => import('./query-provider'));

/**
 * Where TanStack Query's hooks work: around the signed-in screens, the screens open to visitors
 * and members alike, the member's header and "Confirm it's you". It loads Query with it (the
 * nearest Suspense boundary waits), so a guest screen, outside any scope, never does.
 */
export function QueryScope({ children }: { children: ReactNode }) {
  return <QueryProvider>{children}</QueryProvider>;
}
