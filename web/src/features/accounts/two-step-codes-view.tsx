import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { appName } from '../../lib/app-config';
import { saveTextFile } from './api';
import { StepHeading } from './two-step-parts';

/** The downloaded codes' file name, after the app's name. */
export function recoveryCodesFileName(): string {
  return `${appName()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')}-recovery-codes.txt`;
}

async function copyText(text: string): Promise<void> {
  if (!navigator.clipboard?.writeText) throw new Error('No clipboard');
  await navigator.clipboard.writeText(text);
}

/** The 10 recovery codes, shown once (after turning on, or new ones): copy, download, done. */
export function RecoveryCodesView({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const text = `${codes.join('\n')}\n`;

  async function onCopy() {
    try {
      await copyText(text);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  }

  return (
    <div className="flex flex-col gap-4">
      <StepHeading>
        <Trans>Your Recovery Codes</Trans>
      </StepHeading>
      <p className="text-sm">
        <Trans>
          Keep these codes somewhere safe. If you lose your phone, each one signs you in once in
          place of a code from the app. They are shown only this once.
        </Trans>
      </p>
      <ul
        aria-label={t`Recovery codes`}
        className="grid grid-cols-1 gap-2 rounded-md bg-slate-100 p-3 font-mono text-base min-[360px]:grid-cols-2 dark:bg-slate-800"
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <LiveMessage tone="success">
        {copy === 'copied' ? t`Recovery codes copied.` : null}
      </LiveMessage>
      <LiveMessage tone="error">
        {copy === 'failed' ? t`Could not copy. Please select the codes and copy them.` : null}
      </LiveMessage>
      <div className="flex flex-col gap-3 sm:flex-row">
        <Button variant="secondary" className="w-full sm:w-auto sm:min-w-32" onClick={onCopy}>
          <Trans>Copy</Trans>
        </Button>
        <Button
          variant="secondary"
          className="w-full sm:w-auto sm:min-w-32"
          onClick={() => saveTextFile(recoveryCodesFileName(), text)}
        >
          <Trans>Download</Trans>
        </Button>
        <Button className="w-full sm:w-auto sm:min-w-32" onClick={onDone}>
          <Trans>Done</Trans>
        </Button>
      </div>
    </div>
  );
}
