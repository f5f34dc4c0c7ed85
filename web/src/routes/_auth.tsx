import { Outlet, createFileRoute, redirect } from '@tanstack/react-router';
import { QueryScope } from '../components/query-scope';
import { safeReturnPath } from '../lib/return-to';

/**
 * Screens for signed-in users: a visitor is sent to the login screen, which brings them back here
 * after they sign in (`redirect`, an app path; Home is where a sign-in ends anyway).
 */
export const Route = createFileRoute('/_auth')({
  beforeLoad: ({ context, location }) => {
    if (context.auth.isAuthenticated()) return;
    const back = safeReturnPath(location.href);
    throw redirect({
      to: '/',
      search: back && back !== '/home' ? { redirect: back } : {},
      replace: true,
    });
  },
  component: SignedIn,
});

function SignedIn() {
  return (
    <QueryScope>
      <Outlet />
    </QueryScope>
  );
}
