import { i18n } from '@lingui/core';
import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { ScreenHeading, ScreenShell, usePageTitle } from '../../components/ui/screen';
import { useAuth } from '../../lib/auth';
import { useCountdown } from '../../lib/use-countdown';
import { useFormSubmit } from '../../lib/use-form-submit';
import {
  checkEmailChangeLink,
  confirmEmailChange,
  confirmEmailChangeError,
  LINK_INVALID_MESSAGE,
} from './api';
import { CurrentPasswordField } from './current-password-field';
import { readLinkToken } from './link-token';
import { RedirectCard } from './redirect-card';
import { checkPassword } from './validation';

export const CONFIRM_EMAIL_REDIRECT_SECONDS = 3;

/** The link of the email-change mail: the account's password confirms the new address. */
export function ConfirmEmailChangeScreen({ token }: { token: string }) {
  usePageTitle(t`Confirm New Email`);
  const auth = useAuth();
  const navigate = useNavigate();
  // The link's own claims tell its new address (shown, never trusted) and whether it is past its
  // time; the server is asked at once whether it still works, before the password is typed.
  const link = readLinkToken(token, 'emailChange');
  const [badLink, setBadLink] = useState(!link.usable);
  const checked = useRef<string | null>(null);
  useEffect(() => {
    if (!link.usable || checked.current === token) return;
    checked.current = token;
    void checkEmailChangeLink(token).then((answer) => setBadLink(answer === 'bad'));
  }, [token, link.usable]);
  const [password, setPassword] = useState('');
  // The server's word on the password (wrong or missing) shows under the field.
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const refs = { password: useRef<HTMLInputElement>(null) };
  const form = useFormSubmit({
    onStart: () => setPasswordError(null),
    check: () => checkPassword(password),
    fields: refs,
    submit: async () => {
      try {
        await confirmEmailChange(token, password);
      } catch (err) {
        const problem = confirmEmailChangeError(err).password;
        if (problem) {
          setPasswordError(problem);
          refs.password.current?.focus();
        }
        throw err;
      }
      // Every session of the account has ended: the one in this browser ends here too.
      await auth.signOut();
    },
    failure: (err) => confirmEmailChangeError(err).form ?? '',
  });
  // The sign-in's email is the new address.
  const goToLogin = () => void navigate({ to: '/', state: { email: link.newEmail ?? '' } });
  const secondsLeft = useCountdown(CONFIRM_EMAIL_REDIRECT_SECONDS, form.done, goToLogin);

  if (form.done) {
    return (
      <RedirectCard
        title={t`Email Changed`}
        secondsLeft={secondsLeft}
        action={t`Go to Login`}
        onAction={goToLogin}
      >
        <Trans>Email changed. Please sign in with your new email.</Trans>
      </RedirectCard>
    );
  }

  return (
    <ScreenShell>
      <div className="flex flex-col gap-2">
        <ScreenHeading>
          <Trans>Confirm New Email</Trans>
        </ScreenHeading>
        <p className="text-slate-700 dark:text-slate-300">
          <Trans>Enter your password to move your account to its new email address.</Trans>
        </p>
        {link.newEmail ? (
          <p className="text-slate-700 dark:text-slate-300">
            <Trans>
              New email: <span className="font-semibold wrap-anywhere">{link.newEmail}</span>
            </Trans>
          </p>
        ) : null}
      </div>
      <Card>
        <form noValidate onSubmit={form.onSubmit} aria-label={t`Confirm your new email`}>
          <LiveMessage tone="error" alertClassName="mb-4">
            {/* A link known not to work is said at once; the form stays, as the spec has it. */}
            {form.error ?? (badLink ? i18n._(LINK_INVALID_MESSAGE) : null)}
          </LiveMessage>
          <div className="flex flex-col gap-4">
            <CurrentPasswordField
              ref={refs.password}
              value={password}
              invalid={form.invalid === 'password'}
              error={passwordError}
              onChange={(e) => setPassword(e.target.value)}
            />
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? t`Confirming...` : t`Confirm Email Change`}
            </Button>
          </div>
        </form>
      </Card>
    </ScreenShell>
  );
}
