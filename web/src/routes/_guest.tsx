import { createFileRoute, redirect } from '@tanstack/react-router';

/** Screens for visitors: a signed-in user is sent to /home. */
export const Route = createFileRoute('/_guest')({
  beforeLoad: ({ context }) => {
    if (context.auth.isAuthenticated()) throw redirect({ to: '/home', replace: true });
  },
});
