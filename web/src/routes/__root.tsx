import { Outlet, createRootRouteWithContext } from '@tanstack/react-router';
import { AppShell } from '../components/app-shell';
import type { Auth } from '../lib/auth';
import type { Queries } from '../lib/queries';
import { loadCatalogue } from '../lib/i18n';

export interface RouterContext {
  auth: Auth;
  /** The query client, loaded on first use (lib/queries.ts). */
  queries: Queries;
}

export const Route = createRootRouteWithContext<RouterContext>()({
  // A stored session is confirmed (auth-refresh) once, before any guard decides. A signed-in
  // member's header and screens speak from the `member` catalogue, on any route.
  beforeLoad: async ({ context }) => {
    await context.auth.ready();
    if (context.auth.isAuthenticated()) await loadCatalogue('member');
  },
  component: RootLayout,
});

function RootLayout() {
  return (
    <AppShell>
      <Outlet />
    </AppShell>
  );
}
