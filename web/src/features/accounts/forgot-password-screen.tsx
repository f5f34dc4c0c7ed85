import { useRef, useState } from 'react';
import { Link } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { NavButton } from '../../components/ui/nav-button';
import { ScreenHeading, ScreenShell, textLink, usePageTitle } from '../../components/ui/screen';
import { useFormSubmit } from '../../lib/use-form-submit';
import { requestPasswordReset } from './api';
import { EmailField } from './email-field';
import { checkEmail } from './validation';

export function ForgotPasswordScreen() {
  usePageTitle('Forgot password');
  const [email, setEmail] = useState('');
  const emailRef = useRef<HTMLInputElement>(null);
  const form = useFormSubmit({
    check: () => checkEmail(email),
    fields: { email: emailRef },
    submit: () => requestPasswordReset(email),
    failure: () =>
      'Failed to send password reset email. Please check your email address and try again.',
  });

  if (form.done) {
    return (
      <ScreenShell>
        <Card className="flex flex-col gap-4">
          <ScreenHeading>Email Sent</ScreenHeading>
          <p role="status">Password reset email sent! Please check your inbox and spam folder.</p>
          <NavButton to="/" className="w-full">
            Back to Login
          </NavButton>
        </Card>
      </ScreenShell>
    );
  }

  return (
    <ScreenShell>
      <div className="flex flex-col gap-2">
        <ScreenHeading>Forgot Password</ScreenHeading>
        <p className="text-slate-700 dark:text-slate-300">
          Enter your email address and we&apos;ll send you a link to reset your password.
        </p>
      </div>
      <Card>
        <form noValidate onSubmit={form.onSubmit} aria-label="Request a password reset">
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
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? 'Sending...' : 'Send Reset Link'}
            </Button>
          </div>
        </form>
      </Card>
      <p className="text-center text-slate-700 dark:text-slate-300">
        Remembered it?{' '}
        <Link to="/" className={textLink}>
          Back to sign in
        </Link>
      </p>
    </ScreenShell>
  );
}
