import { createFileRoute } from '@tanstack/react-router';
import { HomeScreen } from '../../features/accounts/home-screen';

export const Route = createFileRoute('/_auth/home')({
  // Start loading the release notes for the New Update banner without holding up the screen.
  loader: async ({ context }) => {
    const [client, { changelogQueryOptions }] = await Promise.all([
      context.queries(),
      import('../../features/changelog/api'),
    ]);
    void client.prefetchQuery(changelogQueryOptions);
  },
  component: HomeScreen,
});
