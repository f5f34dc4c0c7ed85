import { createFileRoute } from '@tanstack/react-router';
import { SettingsScreen } from '../../features/accounts/settings-screen';
import { prefetch } from '../../lib/queries';

export const Route = createFileRoute('/_auth/settings')({
  // Start loading the devices and the activity with the screen (also on hover of a link to it).
  loader: async ({ context }) => {
    const user = context.auth.user();
    if (!user) return;
    await prefetch(
      context.queries,
      import('../../features/sessions/api').then((m) => m.sessionsQueryOptions(user.id)),
      import('../../features/audit/api').then((m) => m.securityEventsQueryOptions(user.id)),
    );
  },
  component: SettingsScreen,
});
