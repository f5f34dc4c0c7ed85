import { createFileRoute } from '@tanstack/react-router';
import { WhatsNewScreen } from '../features/changelog/whats-new-screen';
import { changelogQueryOptions } from '../features/changelog/api';

export const Route = createFileRoute('/whats-new')({
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(changelogQueryOptions);
  },
  component: WhatsNewScreen,
});
