import { Outlet, createRootRouteWithContext } from '@tanstack/react-router';
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
  return (
    <main className="min-h-screen">
      <Outlet />
    </main>
  );
}
