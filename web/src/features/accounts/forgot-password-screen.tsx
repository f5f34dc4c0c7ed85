import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useRef, useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { ScreenHeader, ScreenShell, textLink, usePageTitle } from '../../components/ui/screen';
import { useCarriedEmail } from '../../lib/history-state';
import { useFormSubmit } from '../../lib/use-form-submit';
import { requestPasswordReset } from './api';
import { EmailField } from './email-field';
import { formatWait, useMailWait } from './resend-wait';
import { checkEmail } from './validation';

export function ForgotPasswordScreen() {
  usePageTitle(t`Forgot password`);
  const navigate = useNavigate();
  // The email typed on the login screen (or in a link that no longer works) comes along.
  const carriedEmail = useCarriedEmail();
  const [email, setEmail] = useState(carriedEmail);
  const emailRef = useRef<HTMLInputElement>(null);
  const wait = useMailWait('reset', email);
  const form = useFormSubmit({
    check: () => checkEmail(email),
    fields: { email: emailRef },
    submit: async () => {
      await requestPasswordReset(email);
      wait.requested();
    },
    failure: () =>
      t`Failed to send password reset email. Please check your email address and try again.`,
  });
  const backToLogin = () => void navigate({ to: '/', state: { email: email.trim() } });

  if (form.done) {
    return (
      <ScreenShell>
        <ScreenHeader key="sent" title={t`Email Sent`} />
        <Card className="flex flex-col gap-4">
          <p role="status">
            <Trans>Password reset email sent! Please check your inbox and spam folder.</Trans>
          </p>
          <Button className="w-full" onClick={backToLogin}>
            <Trans>Back to Login</Trans>
          </Button>
        </Card>
      </ScreenShell>
    );
  }

  return (
    <ScreenShell>
      <ScreenHeader
        title={t`Forgot Password`}
        description={t`Enter your email address and we'll send you a link to reset your password.`}
      />
      <Card>
        <form noValidate onSubmit={form.onSubmit} aria-label={t`Request a password reset`}>
          <LiveMessage tone="error" alertClassName="mb-4">
            {form.error}
          </LiveMessage>
          <div className="flex flex-col gap-4">
            <EmailField
              ref={emailRef}
              value={email}
              invalid={form.invalid === 'email'}
              onChange={(e) => setEmail(e.target.value)}
            />
            {wait.secondsLeft > 0 ? (
              <p className="text-sm text-slate-700 dark:text-slate-300">
                <Trans>
                  A reset link was sent to this address less than 2 minutes ago. You can ask for
                  another in {formatWait(wait.secondsLeft)}.
                </Trans>
              </p>
            ) : null}
            <Button type="submit" className="w-full" disabled={form.busy || wait.secondsLeft > 0}>
              {form.busy ? t`Sending...` : t`Send Reset Link`}
            </Button>
          </div>
        </form>
      </Card>
      <p className="text-center text-slate-700 dark:text-slate-300">
        <Trans>
          Remembered it?{' '}
          <Link to="/" state={{ email: email.trim() }} className={textLink}>
            Back to sign in
          </Link>
        </Trans>
      </p>
    </ScreenShell>
  );
}
