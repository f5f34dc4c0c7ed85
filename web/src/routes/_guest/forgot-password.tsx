import { createFileRoute } from '@tanstack/react-router';
import { ForgotPasswordScreen } from '../../features/auth/forgot-password-screen';

export const Route = createFileRoute('/_guest/forgot-password')({
  component: ForgotPasswordScreen,
});
