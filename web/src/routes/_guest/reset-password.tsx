import { createFileRoute } from '@tanstack/react-router';
import { ResetPasswordScreen } from '../../features/accounts/reset-password-screen';
import { stringParam } from '../../lib/search';

export const Route = createFileRoute('/_guest/reset-password')({
  validateSearch: (search: Record<string, unknown>): { token?: string } => {
    const token = stringParam(search.token);
    return token ? { token } : {};
  },
  component: ResetPasswordRoute,
});

function ResetPasswordRoute() {
  const { token } = Route.useSearch();
  return <ResetPasswordScreen token={token ?? ''} />;
}
