import { createFileRoute } from '@tanstack/react-router';
import { SettingsScreen } from '../../features/accounts/settings-screen';

export const Route = createFileRoute('/_auth/settings')({
  // Start loading the devices and the activity with the screen (also on hover of a link to it).
  loader: async ({ context }) => {
    const user = context.auth.user();
    if (!user) return;
    const [client, { sessionsQueryOptions }, { securityEventsQueryOptions }] = await Promise.all([
      context.queries(),
      import('../../features/sessions/api'),
      import('../../features/audit/api'),
    ]);
    void client.prefetchQuery(sessionsQueryOptions(user.id));
    void client.prefetchQuery(securityEventsQueryOptions(user.id));
  },
  component: SettingsScreen,
});
