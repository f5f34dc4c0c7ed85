import { createFileRoute } from '@tanstack/react-router';
import { MailScreen } from '../../../features/admin/mail-screen';
import { pageParam, withoutEmpty } from '../../../lib/search';

export const Route = createFileRoute('/_auth/admin/mail')({
  validateSearch: (search: Record<string, unknown>): { page?: string } =>
    withoutEmpty({ page: pageParam(search.page) }),
  component: MailRoute,
});

function MailRoute() {
  const { page } = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <MailScreen
      page={page ? Number(page) : 1}
      onPage={(next) => void navigate({ search: next > 1 ? { page: String(next) } : {} })}
    />
  );
}
