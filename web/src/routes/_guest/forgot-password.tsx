import { createFileRoute } from '@tanstack/react-router';
import { ForgotPasswordScreen } from '../../features/accounts/forgot-password-screen';

export const Route = createFileRoute('/_guest/forgot-password')({
  component: ForgotPasswordScreen,
});
