import { useEffect } from 'react';
import { Outlet, createRootRouteWithContext, useRouter } from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import type { Auth } from '../lib/auth';

export interface RouterContext {
  auth: Auth;
  queryClient: QueryClient;
}

export const Route = createRootRouteWithContext<RouterContext>()({
  // A stored session is confirmed (auth-refresh) once, before any guard decides.
  beforeLoad: ({ context }) => context.auth.ready(),
  component: RootLayout,
});

function RootLayout() {
  const { auth, queryClient } = Route.useRouteContext();
  const router = useRouter();
  // A signed-in request got 401 (the session was ended elsewhere; the local one is over too): the
  // guards decide again, so a signed-in screen gives way to the login screen, and what the
  // member's queries held is dropped. Open screens (What's New, the email-change link) stay.
  useEffect(
    () =>
      auth.onSessionExpired(() => {
        void router.invalidate().then(() => queryClient.clear());
      }),
    [auth, router, queryClient],
  );
  return (
    <main className="min-h-screen">
      <Outlet />
    </main>
  );
}
