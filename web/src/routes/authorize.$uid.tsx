import { createFileRoute } from '@tanstack/react-router';
import { QueryScope } from '../components/query-scope';
import { loadCatalogue } from '../lib/i18n';
import { AuthorizeScreen } from '../features/oidc/authorize-screen';

/**
 * An app's sign-in with Gatehouse (the OpenID provider sends the browser here): open to visitors
 * and members alike, so it sits under neither guard.
 */
export const Route = createFileRoute('/authorize/$uid')({
  // Open to visitors too: the signed-in screens' texts load for them here.
  beforeLoad: () => loadCatalogue('member'),
  component: AuthorizeRoute,
});

function AuthorizeRoute() {
  const { uid } = Route.useParams();
  return (
    <QueryScope>
      <AuthorizeScreen uid={uid} />
    </QueryScope>
  );
}
