import {
  createRouter,
  parseSearchWith,
  stringifySearchWith,
  type RouterHistory,
} from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import { ErrorView } from './components/error-view';
import { NotFoundView } from './components/not-found-view';
import { PendingView } from './components/pending-view';
import type { Auth } from './lib/auth';
import { routeTree } from './routeTree.gen';

export function createAppRouter({
  auth,
  queryClient,
  history,
}: {
  auth: Auth;
  queryClient: QueryClient;
  history?: RouterHistory;
}) {
  return createRouter({
    routeTree,
    history,
    context: { auth, queryClient },
    defaultPreload: 'intent',
    defaultPreloadDelay: 50,
    defaultPendingMs: 1000,
    defaultPendingMinMs: 500,
    // TanStack Query owns caching; loaders only start queries.
    defaultPreloadStaleTime: 0,
    defaultErrorComponent: ErrorView,
    defaultNotFoundComponent: NotFoundView,
    defaultPendingComponent: PendingView,
    // Search values stay strings: an all-digit invite code or token must not become a number.
    parseSearch: parseSearchWith((value) => value),
    stringifySearch: stringifySearchWith(JSON.stringify),
  });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
