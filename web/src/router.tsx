import {
  createRouter,
  parseSearchWith,
  stringifySearchWith,
  type RouterHistory,
} from '@tanstack/react-router';
import { ErrorView } from './components/error-view';
import { NotFoundView } from './components/not-found-view';
import { PendingView } from './components/pending-view';
import type { Auth } from './lib/auth';
import type { Queries } from './lib/queries';
import { routeTree } from './routeTree.gen';

export function createAppRouter({
  auth,
  queries,
  history,
}: {
  auth: Auth;
  queries: Queries;
  history?: RouterHistory;
}) {
  const router = createRouter({
    routeTree,
    history,
    context: { auth, queries },
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
  // A signed-in request got 401: the session was ended elsewhere, and `auth` has ended the local
  // one. The guards decide again, so a signed-in screen gives way to the login screen (open
  // screens such as What's New or the email-change link stay), then the member's data is dropped.
  auth.onSessionExpired(() => {
    void router
      .invalidate()
      .then(queries)
      .then((client) => client.clear());
  });
  return router;
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
