import { createFileRoute } from '@tanstack/react-router';
import { LoginScreen } from '../../features/accounts/login-screen';
import { stringParam } from '../../lib/search';

export const Route = createFileRoute('/_guest/')({
  // `redirect`: where a visitor was going when a signed-in screen sent them here.
  validateSearch: (search: Record<string, unknown>): { redirect?: string } => {
    const redirect = stringParam(search.redirect);
    return redirect ? { redirect } : {};
  },
  component: LoginRoute,
});

function LoginRoute() {
  const { redirect } = Route.useSearch();
  return <LoginScreen returnTo={redirect} />;
}
