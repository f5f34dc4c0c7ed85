import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Alert, LiveMessage } from '../../components/ui/alert';
import { TitledCard } from '../../components/ui/card';
import { Button } from '../../components/ui/button';
import { useAuth } from '../../lib/auth';
import { serverText } from '../../lib/messages';
import type { UserRecord } from '../../lib/session';
import { deleteAccount } from './api';

type Step = 'idle' | 'confirming' | 'deleting';

export function DeleteAccount({ user }: { user: UserRecord | null }) {
  const auth = useAuth();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [step, setStep] = useState<Step>('idle');
  const [error, setError] = useState<string | null>(null);

  async function onConfirm() {
    setError(null);
    if (!user) {
      setError(t`No user found.`);
      return;
    }
    setStep('deleting');
    try {
      await deleteAccount(user.id);
      await auth.signOut();
    } catch (err) {
      setError(serverText(err) ?? t`Failed to delete account. Please try again.`);
      setStep('confirming');
      return;
    }
    await navigate({ to: '/', state: { notice: 'deleted' } });
    queryClient.clear();
  }

  return (
    <TitledCard
      title={t`Danger Zone`}
      description={t`Deleting your account removes your profile and your unused invite codes. People you invited keep their accounts.`}
      className="border-red-300 dark:border-red-900"
    >
      <LiveMessage tone="error">{error}</LiveMessage>
      {step === 'idle' ? (
        <Button variant="danger" className="w-full sm:w-auto" onClick={() => setStep('confirming')}>
          <Trans>Delete Account</Trans>
        </Button>
      ) : (
        <Alert tone="error">
          <h2 className="font-semibold">
            <Trans>Delete your account?</Trans>
          </h2>
          <p className="mt-1">
            <Trans>This action cannot be undone. All your data will be permanently deleted.</Trans>
          </p>
          <div className="mt-3 flex flex-wrap gap-2">
            <Button
              variant="secondary"
              disabled={step === 'deleting'}
              onClick={() => {
                setError(null);
                setStep('idle');
              }}
            >
              <Trans>Cancel</Trans>
            </Button>
            <Button
              variant="danger"
              className="min-w-32"
              disabled={step === 'deleting'}
              onClick={onConfirm}
            >
              {step === 'deleting' ? t`Deleting...` : t`Yes, Delete`}
            </Button>
          </div>
        </Alert>
      )}
    </TitledCard>
  );
}
