import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { ReauthHost } from './features/reauth/reauth-host';
import type { createAppRouter } from './router';

export function App({
  router,
  queryClient,
}: {
  router: ReturnType<typeof createAppRouter>;
  queryClient: QueryClient;
}) {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
      {/* "Confirm it's you", for any request the server refuses for it (lib/reauth.ts). */}
      <ReauthHost auth={router.options.context.auth} />
    </QueryClientProvider>
  );
}
