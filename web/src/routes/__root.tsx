import { Outlet, createRootRouteWithContext } from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import { AppShell } from '../components/app-shell';
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
    <AppShell>
      <Outlet />
    </AppShell>
  );
}
