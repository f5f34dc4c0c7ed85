import { createFileRoute } from '@tanstack/react-router';
import type { MembersSearch } from '../../../features/admin/api';
import { MembersScreen } from '../../../features/admin/members-screen';
import { oneOfParam, pageParam, textParam, withoutEmpty } from '../../../lib/search';

export const Route = createFileRoute('/_auth/admin/')({
  validateSearch: (search: Record<string, unknown>): MembersSearch =>
    withoutEmpty({
      q: textParam(search.q),
      status: oneOfParam(['verified', 'unverified', 'disabled'] as const, search.status),
      sort: oneOfParam(['-created', 'created', 'email'] as const, search.sort),
      page: pageParam(search.page),
    }),
  component: MembersRoute,
});

function MembersRoute() {
  const search = Route.useSearch();
  const navigate = Route.useNavigate();
  return <MembersScreen search={search} onSearch={(next) => void navigate({ search: next })} />;
}
