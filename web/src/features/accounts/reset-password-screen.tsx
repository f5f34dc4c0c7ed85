import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { Alert, LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { ScreenHeader, ScreenShell, usePageTitle } from '../../components/ui/screen';
import { fieldText, serverText } from '../../lib/messages';
import { useCountdown } from '../../lib/use-countdown';
import { useFormSubmit } from '../../lib/use-form-submit';
import { checkResetLink, confirmPasswordReset, isBadLink } from './api';
import { readLinkToken } from './link-token';
import { NewPasswordFields } from './new-password-fields';
import { RedirectCard } from './redirect-card';
import { checkNewPassword } from './validation';

export const RESET_REDIRECT_SECONDS = 3;

export const RESET_FAILED_MESSAGE = msg`Failed to reset password. The link may be invalid or expired.`;

export function ResetPasswordScreen({ token }: { token: string }) {
  usePageTitle(t`Reset password`);
  const navigate = useNavigate();
  const link = readLinkToken(token, 'passwordReset');
  // A link that can not work is said at once (its own claims), or as soon as the server says so,
  // before anyone types a new password twice.
  const [badLink, setBadLink] = useState(!link.usable);
  const checked = useRef<string | null>(null);
  useEffect(() => {
    if (!link.usable || checked.current === token) return;
    checked.current = token;
    void checkResetLink(token).then((answer) => setBadLink(answer === 'bad'));
  }, [token, link.usable]);

  const [password, setPassword] = useState('');
  const [passwordConfirm, setPasswordConfirm] = useState('');
  const refs = {
    password: useRef<HTMLInputElement>(null),
    passwordConfirm: useRef<HTMLInputElement>(null),
  };
  const form = useFormSubmit({
    check: () => checkNewPassword({ password, passwordConfirm }),
    fields: refs,
    submit: async () => {
      try {
        await confirmPasswordReset(token, password, passwordConfirm);
      } catch (err) {
        if (isBadLink(err)) setBadLink(true);
        throw err;
      }
    },
    failure: (err) => fieldText(err, 'password') ?? serverText(err) ?? i18n._(RESET_FAILED_MESSAGE),
  });
  // The sign-in's email is the link's account's.
  const goToLogin = () => void navigate({ to: '/', state: { email: link.email ?? '' } });
  const secondsLeft = useCountdown(RESET_REDIRECT_SECONDS, form.done, goToLogin);

  if (form.done) {
    return (
      <RedirectCard
        title={t`Password reset successfully!`}
        secondsLeft={secondsLeft}
        action={t`Go to Login`}
        onAction={goToLogin}
      >
        <Trans>You can now sign in with your new password.</Trans>
      </RedirectCard>
    );
  }

  if (badLink) {
    return (
      <ScreenShell>
        <ScreenHeader key="bad-link" title={t`Reset Password`} />
        <Card className="flex flex-col gap-4">
          <Alert tone="error">
            <p role="alert">{i18n._(RESET_FAILED_MESSAGE)}</p>
          </Alert>
          <p className="text-slate-700 dark:text-slate-300">
            <Trans>
              Reset links work once, for 30 minutes. Ask for a new one and use the newest email.
            </Trans>
          </p>
          <Button
            className="w-full"
            onClick={() =>
              void navigate({ to: '/forgot-password', state: { email: link.email ?? '' } })
            }
          >
            <Trans>Request a New Link</Trans>
          </Button>
        </Card>
      </ScreenShell>
    );
  }

  return (
    <ScreenShell>
      <ScreenHeader
        title={t`Reset Password`}
        description={t`Choose a new password for your account.`}
      />
      <Card>
        <form noValidate onSubmit={form.onSubmit} aria-label={t`Set a new password`}>
          <LiveMessage tone="error" alertClassName="mb-4">
            {form.error}
          </LiveMessage>
          <div className="flex flex-col gap-4">
            <NewPasswordFields
              label={t`New Password`}
              password={password}
              passwordConfirm={passwordConfirm}
              onPasswordChange={(e) => setPassword(e.target.value)}
              onPasswordConfirmChange={(e) => setPasswordConfirm(e.target.value)}
              invalid={form.invalid}
              refs={refs}
            />
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? t`Resetting...` : t`Reset Password`}
            </Button>
          </div>
        </form>
      </Card>
    </ScreenShell>
  );
}
