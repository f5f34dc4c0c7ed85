import { useRef, useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { ScreenHeading, ScreenShell, textLink, usePageTitle } from '../../components/ui/screen';
import { errorMessage } from '../../lib/pb';
import { useCountdown } from '../../lib/use-countdown';
import { useFormSubmit } from '../../lib/use-form-submit';
import { confirmPasswordReset } from './api';
import { NewPasswordFields } from './new-password-fields';
import { RedirectCard } from './redirect-card';
import { checkNewPassword } from './validation';

export const RESET_REDIRECT_SECONDS = 3;

export function ResetPasswordScreen({ token }: { token: string }) {
  usePageTitle('Reset password');
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [passwordConfirm, setPasswordConfirm] = useState('');
  const refs = {
    password: useRef<HTMLInputElement>(null),
    passwordConfirm: useRef<HTMLInputElement>(null),
  };
  const form = useFormSubmit({
    check: () => checkNewPassword({ password, passwordConfirm }),
    fields: refs,
    submit: () => confirmPasswordReset(token, password, passwordConfirm),
    failure: (err) =>
      errorMessage(err) ?? 'Failed to reset password. The link may be invalid or expired.',
  });
  const goToLogin = () => void navigate({ to: '/' });
  const secondsLeft = useCountdown(RESET_REDIRECT_SECONDS, form.done, goToLogin);

  if (form.done) {
    return (
      <RedirectCard
        title="Password reset successfully!"
        secondsLeft={secondsLeft}
        action="Go to Login"
        onAction={goToLogin}
      >
        You can now sign in with your new password.
      </RedirectCard>
    );
  }

  return (
    <ScreenShell>
      <div className="flex flex-col gap-2">
        <ScreenHeading>Reset Password</ScreenHeading>
        <p className="text-slate-700 dark:text-slate-300">
          Choose a new password for your account.
        </p>
      </div>
      <Card>
        <form noValidate onSubmit={form.onSubmit} aria-label="Set a new password">
          <LiveMessage tone="error" alertClassName="mb-4">
            {form.error}
          </LiveMessage>
          <div className="flex flex-col gap-4">
            <NewPasswordFields
              label="New Password"
              password={password}
              passwordConfirm={passwordConfirm}
              onPasswordChange={(e) => setPassword(e.target.value)}
              onPasswordConfirmChange={(e) => setPasswordConfirm(e.target.value)}
              invalid={form.invalid}
              refs={refs}
            />
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? 'Resetting...' : 'Reset Password'}
            </Button>
          </div>
        </form>
      </Card>
      <p className="text-center text-slate-700 dark:text-slate-300">
        <Link to="/forgot-password" className={textLink}>
          Request a new reset link
        </Link>
      </p>
    </ScreenShell>
  );
}
