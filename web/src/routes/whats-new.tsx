import { createFileRoute } from '@tanstack/react-router';
import { loadCatalogue } from '../lib/i18n';
import { WhatsNewScreen } from '../features/changelog/whats-new-screen';
import { changelogQueryOptions } from '../features/changelog/api';

export const Route = createFileRoute('/whats-new')({
  // Open to visitors too: the signed-in screens' texts load for them here.
  beforeLoad: () => loadCatalogue('member'),
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(changelogQueryOptions);
  },
  component: WhatsNewScreen,
});
