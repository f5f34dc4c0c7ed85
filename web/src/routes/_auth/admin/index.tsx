import { createFileRoute } from '@tanstack/react-router';
import type { MembersSearch } from '../../../features/admin/api';
import { MembersScreen } from '../../../features/admin/members-screen';
import { oneOfParam, pageParam, textParam, withoutEmpty } from '../../../lib/search';

// The Members table's orders (features/admin/api.ts MEMBER_SORTS), written out here: this part of
// the route is in the app's first download, which must not take the console's code with it.
const SORTS = [
  '-created',
  'created',
  'email',
  '-email',
  'disabled',
  '-disabled',
  'verified',
  '-verified',
] as const;

export const Route = createFileRoute('/_auth/admin/')({
  validateSearch: (search: Record<string, unknown>): MembersSearch =>
    withoutEmpty({
      q: textParam(search.q),
      status: oneOfParam(['verified', 'unverified', 'disabled'] as const, search.status),
      filter: textParam(search.filter),
      sort: oneOfParam(SORTS, search.sort),
      page: pageParam(search.page),
    }),
  component: MembersRoute,
});

function MembersRoute() {
  const search = Route.useSearch();
  const navigate = Route.useNavigate();
  return <MembersScreen search={search} onSearch={(next) => void navigate({ search: next })} />;
}
