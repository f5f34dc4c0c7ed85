import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { TitledCard } from '../../components/ui/card';
import { NavButton } from '../../components/ui/nav-button';
import type { UserRecord } from '../../lib/session';
import { twoStepQueryOptions } from '../accounts/api';
import { passkeysQueryOptions } from '../passkeys/api';

/**
 * A nudge for a member whose password is their only lock: neither two-step sign-in nor a passkey.
 * It reads what Settings reads (the same queries, so a change there shows here), and shows only
 * once both answers say "none": while loading, or when either could not be read, it says nothing
 * (it is advice, not something the member came for).
 */
export function SecurityNudgeCard({ user }: { user: UserRecord }) {
  const twoStep = useQuery(twoStepQueryOptions(user.id));
  const passkeys = useQuery(passkeysQueryOptions(user.id));
  if (!twoStep.isSuccess || !passkeys.isSuccess) return null;
  if (twoStep.data.enabled || passkeys.data.length > 0) return null;
  return (
    <TitledCard title={t`Protect Your Account`}>
      <p>
        <Trans>
          Turn on two-step sign-in or add a passkey in Settings, so that your password alone is not
          enough to sign in as you.
        </Trans>
      </p>
      <NavButton to="/settings" variant="secondary" className="self-start">
        <Trans>Open Settings</Trans>
      </NavButton>
    </TitledCard>
  );
}
