import { Outlet, createFileRoute } from '@tanstack/react-router';
import { AdminAreaScreen } from '../../features/admin/admin-area-screen';
import { loadCatalogue } from '../../lib/i18n';

/** The operator console: its screens sit inside this frame, which refuses non-operators. */
export const Route = createFileRoute('/_auth/admin')({
  beforeLoad: () => loadCatalogue('console'),
  loader: async ({ context }) => {
    const user = context.auth.user();
    if (!user) return;
    const [client, { meQueryOptions }] = await Promise.all([
      context.queries(),
      import('../../features/admin/api'),
    ]);
    void client.prefetchQuery(meQueryOptions(user.id));
  },
  component: AdminArea,
});

function AdminArea() {
  return (
    <AdminAreaScreen>
      <Outlet />
    </AdminAreaScreen>
  );
}
