import { createFileRoute } from '@tanstack/react-router';
import { ProfileScreen } from '../../features/accounts/profile-screen';
import { prefetch } from '../../lib/queries';

export const Route = createFileRoute('/_auth/profile')({
  // Start loading the invite codes with the screen (also on hover of a link to it).
  loader: async ({ context }) => {
    const user = context.auth.user();
    if (!user) return;
    await prefetch(
      context.queries,
      import('../../features/invites/api').then((m) => m.inviteCodesQueryOptions(user.id)),
    );
  },
  component: ProfileScreen,
});
