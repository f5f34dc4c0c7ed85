import { t } from '@lingui/core/macro';
import { useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { serverText } from '../../lib/messages';
import type { UserRecord } from '../../lib/session';
import { downloadMyData } from './api';

/** Settings → Your Data: everything the server holds about the member, as a JSON file. */
export function YourDataCard({ user }: { user: UserRecord }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onDownload() {
    if (busy) return;
    setError(null);
    setBusy(true);
    try {
      await downloadMyData(user.id);
    } catch (err) {
      setError(serverText(err) ?? t`Failed to download your data. Please try again.`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <TitledCard
      title={t`Your Data`}
      description={t`A copy of everything Gatehouse keeps about you: your account, invite codes, signed-in devices and activity, as a JSON file.`}
    >
      <LiveMessage tone="error">{error}</LiveMessage>
      <div>
        <Button
          variant="secondary"
          className="w-full sm:w-auto sm:min-w-48"
          disabled={busy}
          onClick={onDownload}
        >
          {busy ? t`Preparing...` : t`Download My Data`}
        </Button>
      </div>
    </TitledCard>
  );
}
