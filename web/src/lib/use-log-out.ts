import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useAuth } from './auth';

/**
 * Log Out, wherever it is pressed (Home, the header's menu): ends the session on the server and
 * here, opens the login screen with "You have been signed out.", then drops the member's data.
 */
export function useLogOut(): () => Promise<void> {
  const auth = useAuth();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return async () => {
    await auth.signOut();
    await navigate({ to: '/', state: { notice: 'signed-out' } });
    queryClient.clear();
  };
}
