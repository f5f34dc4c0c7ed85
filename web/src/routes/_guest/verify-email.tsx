import { createFileRoute } from '@tanstack/react-router';
import { VerifyEmailScreen } from '../../features/accounts/verify-email-screen';
import { stringParam } from '../../lib/search';

export const Route = createFileRoute('/_guest/verify-email')({
  validateSearch: (search: Record<string, unknown>): { token?: string } => {
    const token = stringParam(search.token);
    return token ? { token } : {};
  },
  component: VerifyEmailRoute,
});

function VerifyEmailRoute() {
  const { token } = Route.useSearch();
  return <VerifyEmailScreen token={token ?? ''} />;
}
