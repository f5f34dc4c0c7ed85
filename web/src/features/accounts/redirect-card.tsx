import type { ReactNode } from 'react';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { ScreenHeader, ScreenShell } from '../../components/ui/screen';
import { redirectText } from '../../lib/use-countdown';

/**
 * A finished step on the way to the login screen: its title, what happened, the countdown the
 * user can see, and a button to go now.
 */
export function RedirectCard({
  title,
  children,
  secondsLeft,
  action,
  onAction,
}: {
  title: string;
  children: ReactNode;
  secondsLeft: number;
  action: string;
  onAction: () => void;
}) {
  return (
    <ScreenShell>
      <ScreenHeader title={title} />
      <Card className="flex flex-col gap-4">
        <p role="status">{children}</p>
        <p className="text-slate-700 dark:text-slate-300">{redirectText(secondsLeft)}</p>
        <Button onClick={onAction} className="w-full">
          {action}
        </Button>
      </Card>
    </ScreenShell>
  );
}
