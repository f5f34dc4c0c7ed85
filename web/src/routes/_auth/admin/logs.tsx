import { createFileRoute } from '@tanstack/react-router';
import { LogsScreen } from '../../../features/admin/logs-screen';
import { LOG_METHODS, type LogsSearch } from '../../../features/admin/logs-search';
import { oneOfParam, pageParam, stringParam, withoutEmpty } from '../../../lib/search';

export const Route = createFileRoute('/_auth/admin/logs')({
  validateSearch: (search: Record<string, unknown>): LogsSearch =>
    withoutEmpty({
      filter: stringParam(search.filter)?.trim() || undefined,
      errors: oneOfParam(['only'] as const, search.errors),
      method: oneOfParam(LOG_METHODS, search.method),
      sort: oneOfParam(['created'] as const, search.sort),
      page: pageParam(search.page),
    }),
  component: LogsRoute,
});

function LogsRoute() {
  const search = Route.useSearch();
  const navigate = Route.useNavigate();
  return <LogsScreen search={search} onSearch={(next) => void navigate({ search: next })} />;
}
