import { Outlet, createFileRoute } from '@tanstack/react-router';
import { AdminAreaScreen } from '../../features/admin/admin-area-screen';
import { loadCatalogue } from '../../lib/i18n';
import { prefetch } from '../../lib/queries';

/** The operator console: its screens sit inside this frame, which refuses non-operators. */
export const Route = createFileRoute('/_auth/admin')({
  beforeLoad: () => loadCatalogue('console'),
  loader: async ({ context }) => {
    const user = context.auth.user();
    if (!user) return;
    await prefetch(
      context.queries,
      import('../../features/admin/api').then((m) => m.meQueryOptions(user.id)),
    );
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
