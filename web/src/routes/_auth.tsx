import { createFileRoute, redirect } from '@tanstack/react-router';

/** Screens for signed-in users: a visitor is sent to the login screen. */
export const Route = createFileRoute('/_auth')({
  beforeLoad: ({ context }) => {
    if (!context.auth.isAuthenticated()) throw redirect({ to: '/', replace: true });
  },
});
