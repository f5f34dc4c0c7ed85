import { createFileRoute } from '@tanstack/react-router';
import type { LogSearch } from '../../../features/admin/api';
import { SecurityLogScreen } from '../../../features/admin/security-log-screen';
import { pageParam, textParam, withoutEmpty } from '../../../lib/search';

export const Route = createFileRoute('/_auth/admin/security-log')({
  validateSearch: (search: Record<string, unknown>): LogSearch =>
    withoutEmpty({
      member: textParam(search.member),
      type: textParam(search.type),
      page: pageParam(search.page),
    }),
  component: SecurityLogRoute,
});

function SecurityLogRoute() {
  const search = Route.useSearch();
  const navigate = Route.useNavigate();
  return <SecurityLogScreen search={search} onSearch={(next) => void navigate({ search: next })} />;
}
