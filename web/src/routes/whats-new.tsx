import { createFileRoute } from '@tanstack/react-router';
import { QueryScope } from '../components/query-scope';
import { loadCatalogue } from '../lib/i18n';
import { WhatsNewScreen } from '../features/changelog/whats-new-screen';

export const Route = createFileRoute('/whats-new')({
  // Open to visitors too: the signed-in screens' texts load for them here.
  beforeLoad: () => loadCatalogue('member'),
  loader: async ({ context }) => {
    const [client, { changelogQueryOptions }] = await Promise.all([
      context.queries(),
      import('../features/changelog/api'),
    ]);
    void client.prefetchQuery(changelogQueryOptions);
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
