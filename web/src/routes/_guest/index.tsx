import { createFileRoute } from '@tanstack/react-router';
import { LoginScreen } from '../../features/accounts/login-screen';

export const Route = createFileRoute('/_guest/')({
  component: LoginScreen,
});
