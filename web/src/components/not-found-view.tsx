import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { Link } from '@tanstack/react-router';
import { buttonClass } from './ui/button';
import { Card } from './ui/card';
import { ScreenHeader, ScreenShell, usePageTitle } from './ui/screen';

export function NotFoundView() {
  usePageTitle(t`Not Found`);
  return (
    <ScreenShell>
      <ScreenHeader title={t`Not Found`} />
      <Card className="flex flex-col gap-4">
        <p className="text-slate-700 dark:text-slate-300">
          <Trans>The page you are looking for does not exist.</Trans>
        </p>
        <Link to="/" className={buttonClass('primary', 'w-full')}>
          <Trans>Go to Home</Trans>
        </Link>
      </Card>
    </ScreenShell>
  );
}
