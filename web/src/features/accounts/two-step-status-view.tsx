import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { serverText } from '../../lib/messages';
import { setUpAuthenticator, twoStepQueryOptions } from './api';
import { wideButton } from './two-step-parts';

/**
 * Two-Step Sign-In as it is: off (Set Up Authenticator App starts the set-up with a new seed) or
 * on (how many recovery codes are left; New Recovery Codes and Turn Off ask for the password).
 */
export function TwoStepStatusView({
  userId,
  returning,
  onSetUp,
  onPassword,
}: {
  userId: string;
  /** Back from another step: the state line takes focus. */
  returning: boolean;
  onSetUp: (setup: { secret: string; qrSvg: string }) => void;
  onPassword: (action: 'disable' | 'renew') => void;
}) {
  const status = useQuery(twoStepQueryOptions(userId));
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const stateRef = useRef<HTMLParagraphElement>(null);
  const loaded = status.data !== undefined;
  useEffect(() => {
    if (returning && loaded) stateRef.current?.focus();
  }, [returning, loaded]);

  async function onStart() {
    if (starting) return;
    setError(null);
    setStarting(true);
    try {
      const { secret, qrSvg } = await setUpAuthenticator();
      onSetUp({ secret, qrSvg });
    } catch (err) {
      setError(serverText(err) ?? t`Failed to set up the authenticator app. Please try again.`);
      setStarting(false);
    }
  }

  if (status.isPending)
    return (
      <p className="text-sm">
        <Trans>Loading...</Trans>
      </p>
    );
  if (status.isError) {
    return (
      <p role="alert" className="text-sm text-red-800 dark:text-red-200">
        <Trans>Failed to load two-step sign-in. Please try again later.</Trans>
      </p>
    );
  }
  const { enabled, recoveryCodesLeft } = status.data;
  return (
    <div className="flex flex-col gap-4">
      <LiveMessage tone="error">{error}</LiveMessage>
      <p ref={stateRef} tabIndex={-1} className="focus:outline-none">
        {enabled ? (
          <>
            <span className="font-semibold">
              <Trans>Two-step sign-in is on.</Trans>
            </span>{' '}
            {recoveryCodesLeft === 1
              ? t`You have 1 recovery code left.`
              : t`You have ${recoveryCodesLeft} recovery codes left.`}
          </>
        ) : (
          <>
            <Trans>
              <span className="font-semibold">
                <Trans>Two-step sign-in is off.</Trans>
              </span>{' '}
              Your password alone signs you in.
            </Trans>
          </>
        )}
      </p>
      {enabled ? (
        <div className="flex flex-col gap-3 sm:flex-row">
          <Button variant="secondary" className={wideButton} onClick={() => onPassword('renew')}>
            <Trans>New Recovery Codes</Trans>
          </Button>
          <Button variant="danger" className={wideButton} onClick={() => onPassword('disable')}>
            <Trans>Turn Off</Trans>
          </Button>
        </div>
      ) : (
        <div>
          <Button className={wideButton} disabled={starting} onClick={onStart}>
            {starting ? t`Setting up...` : t`Set Up Authenticator App`}
          </Button>
        </div>
      )}
    </div>
  );
}
