import { createFileRoute } from '@tanstack/react-router';
import { loadCatalogue } from '../lib/i18n';
import { ConfirmEmailChangeScreen } from '../features/accounts/confirm-email-change-screen';
import { stringParam } from '../lib/search';

/**
 * The email-change link: open to visitors and members alike (the link may be opened in any
 * browser, signed in or not), so it sits under neither guard.
 */
export const Route = createFileRoute('/confirm-email-change')({
  // Open to visitors too: the signed-in screens' texts load for them here.
  beforeLoad: () => loadCatalogue('member'),
  validateSearch: (search: Record<string, unknown>): { token?: string } => {
    const token = stringParam(search.token);
    return token ? { token } : {};
  },
  component: ConfirmEmailChangeRoute,
});

function ConfirmEmailChangeRoute() {
  const { token } = Route.useSearch();
  return <ConfirmEmailChangeScreen token={token ?? ''} />;
}
