import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useState } from 'react';
import type { ErrorComponentProps } from '@tanstack/react-router';
import { Button } from './ui/button';
import { Card } from './ui/card';
import { ScreenHeader, ScreenShell, usePageTitle } from './ui/screen';

/** The generic failure view (the router's default error component). */
export function ErrorView({ error, reset }: ErrorComponentProps) {
  usePageTitle(t`Error`);
  const [show, setShow] = useState(false);
  const message = error instanceof Error ? error.message : String(error);
  return (
    <ScreenShell>
      <ScreenHeader title={t`Something went wrong!`} />
      <Card className="flex flex-col gap-4">
        <p className="text-slate-700 dark:text-slate-300">
          <Trans>An unexpected error stopped this page from loading.</Trans>
        </p>
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" aria-expanded={show} onClick={() => setShow((s) => !s)}>
            {show ? t`Hide Error` : t`Show Error`}
          </Button>
          <Button onClick={reset}>
            <Trans>Try Again</Trans>
          </Button>
        </div>
        {show ? (
          <pre className="overflow-x-auto rounded-md border border-red-300 bg-red-50 p-3 text-sm whitespace-pre-wrap break-all text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
            {message || t`Unknown error`}
          </pre>
        ) : null}
      </Card>
    </ScreenShell>
  );
}
