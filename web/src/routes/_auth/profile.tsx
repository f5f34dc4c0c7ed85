import { createFileRoute } from '@tanstack/react-router';
import { ProfileScreen } from '../../features/accounts/profile-screen';

export const Route = createFileRoute('/_auth/profile')({
  // Start loading the invite codes with the screen (also on hover of a link to it).
  loader: async ({ context }) => {
    const user = context.auth.user();
    if (!user) return;
    const [client, { inviteCodesQueryOptions }] = await Promise.all([
      context.queries(),
      import('../../features/invites/api'),
    ]);
    void client.prefetchQuery(inviteCodesQueryOptions(user.id));
  },
  component: ProfileScreen,
});
