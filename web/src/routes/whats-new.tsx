import { createFileRoute } from '@tanstack/react-router';
import { QueryScope } from '../components/query-scope';
import { loadCatalogue } from '../lib/i18n';
import { WhatsNewScreen } from '../features/changelog/whats-new-screen';
import { prefetch } from '../lib/queries';

export const Route = createFileRoute('/whats-new')({
  // Open to visitors too: the signed-in screens' texts load for them here.
  beforeLoad: () => loadCatalogue('member'),
  loader: async ({ context }) => {
    await prefetch(
      context.queries,
      import('../features/changelog/api').then((m) => m.changelogQueryOptions),
    );
  },
  component: WhatsNew,
});

function WhatsNew() {
  return (
    <QueryScope>
      <WhatsNewScreen />
    </QueryScope>
  );
}
