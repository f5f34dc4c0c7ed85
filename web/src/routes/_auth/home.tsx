import { createFileRoute } from '@tanstack/react-router';
import { HomeScreen } from '../../features/accounts/home-screen';
import { changelogQueryOptions } from '../../features/changelog/api';

export const Route = createFileRoute('/_auth/home')({
  // Start loading the release notes for the New Update banner without holding up the screen.
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(changelogQueryOptions);
  },
  component: HomeScreen,
});
