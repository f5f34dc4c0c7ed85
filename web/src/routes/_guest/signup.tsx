import { createFileRoute } from '@tanstack/react-router';
import { SignUpScreen } from '../../features/accounts/signup-screen';
import { stringParam } from '../../lib/search';

export const Route = createFileRoute('/_guest/signup')({
  validateSearch: (search: Record<string, unknown>): { code?: string } => {
    const code = stringParam(search.code)?.trim();
    return code ? { code } : {};
  },
  component: SignUpRoute,
});

function SignUpRoute() {
  const { code } = Route.useSearch();
  return <SignUpScreen code={code} />;
}
