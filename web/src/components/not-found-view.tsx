import { Link } from '@tanstack/react-router';
import { buttonClass } from './ui/button';
import { Card } from './ui/card';
import { ScreenHeader, ScreenShell, usePageTitle } from './ui/screen';

export function NotFoundView() {
  usePageTitle('Not Found');
  return (
    <ScreenShell>
      <ScreenHeader title="Not Found" />
      <Card className="flex flex-col gap-4">
        <p className="text-slate-700 dark:text-slate-300">
          The page you are looking for does not exist.
        </p>
        <Link to="/" className={buttonClass('primary', 'w-full')}>
          Go to Home
        </Link>
      </Card>
    </ScreenShell>
  );
}
