import { createFileRoute } from '@tanstack/react-router';
import { HomeScreen } from '../../features/accounts/home-screen';
import { prefetch } from '../../lib/queries';

export const Route = createFileRoute('/_auth/home')({
  // Start loading the release notes for the New Update banner without holding up the screen.
  loader: async ({ context }) => {
    await prefetch(
      context.queries,
      import('../../features/changelog/api').then((m) => m.changelogQueryOptions),
    );
  },
  component: HomeScreen,
});
