import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { LiveMessage } from '../../components/ui/alert';
import { TitledCard } from '../../components/ui/card';
import type { UserRecord } from '../../lib/session';
import { securityEventsKeys } from '../audit/api';
import { twoStepKeys } from './api';
import { RecoveryCodesView } from './two-step-codes-view';
import { TwoStepPasswordView } from './two-step-password-view';
import { TwoStepSetupView } from './two-step-setup-view';
import { TwoStepStatusView } from './two-step-status-view';

export const TURNED_OFF_MESSAGE = msg`Two-step sign-in is off.`;

type View =
  | { kind: 'status'; returning: boolean }
  | { kind: 'setup'; secret: string; qrSvg: string }
  | { kind: 'codes'; codes: string[] }
  | { kind: 'password'; action: 'disable' | 'renew' };

/**
 * Settings → Two-Step Sign-In: turn on a code from an authenticator app (QR code or typed key,
 * then a code to prove it works), see the 10 recovery codes once, get new ones or turn it off
 * (both with the password). Each new step's heading takes focus.
 *
 * The card only picks the view and carries what one hands to the next (the seed, the codes, the
 * notice); each view is its own component (two-step-*-view.tsx).
 */
export function TwoStepCard({ user }: { user: UserRecord }) {
  const queryClient = useQueryClient();
  const [view, setView] = useState<View>({ kind: 'status', returning: false });
  const [notice, setNotice] = useState<string | null>(null);

  function changed() {
    void queryClient.invalidateQueries({ queryKey: twoStepKeys.of(user.id) });
    void queryClient.invalidateQueries({ queryKey: securityEventsKeys.of(user.id) });
  }
  const backToStatus = () => setView({ kind: 'status', returning: true });

  return (
    <TitledCard
      title={t`Two-Step Sign-In`}
      description={t`Ask for a code from an authenticator app on your phone each time you sign in with your password.`}
    >
      <LiveMessage tone="success">{view.kind === 'status' ? notice : null}</LiveMessage>
      {view.kind === 'status' ? (
        <TwoStepStatusView
          userId={user.id}
          returning={view.returning}
          onSetUp={(setup) => {
            setNotice(null);
            setView({ kind: 'setup', ...setup });
          }}
          onPassword={(action) => {
            setNotice(null);
            setView({ kind: 'password', action });
          }}
        />
      ) : null}
      {view.kind === 'setup' ? (
        <TwoStepSetupView
          secret={view.secret}
          qrSvg={view.qrSvg}
          onEnabled={(codes) => {
            changed();
            setView({ kind: 'codes', codes });
          }}
          onCancel={backToStatus}
        />
      ) : null}
      {view.kind === 'codes' ? (
        <RecoveryCodesView codes={view.codes} onDone={backToStatus} />
      ) : null}
      {view.kind === 'password' ? (
        <TwoStepPasswordView
          action={view.action}
          onDone={(codes) => {
            changed();
            if (codes) {
              setView({ kind: 'codes', codes });
            } else {
              setNotice(i18n._(TURNED_OFF_MESSAGE));
              backToStatus();
            }
          }}
          onCancel={backToStatus}
        />
      ) : null}
    </TitledCard>
  );
}
