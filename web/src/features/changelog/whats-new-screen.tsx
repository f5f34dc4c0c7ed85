import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect } from 'react';
import { Card } from '../../components/ui/card';
import { cn } from '../../components/ui/cn';
import { NavButton } from '../../components/ui/nav-button';
import { Spinner } from '../../components/ui/spinner';
import { ScreenHeading, ScreenShell, usePageTitle } from '../../components/ui/screen';
import {
  formatReleaseDate,
  storeLastViewedVersion,
  useChangelog,
  type ChangelogEntry,
} from './api';

export function WhatsNewScreen() {
  usePageTitle(t`What's New`);
  const changelog = useChangelog();
  const latest = changelog.data?.[0]?.version;

  useEffect(() => {
    if (latest) storeLastViewedVersion(latest);
  }, [latest]);

  return (
    <ScreenShell width="wide">
      <header className="flex flex-col gap-4">
        <div>
          <NavButton to="/home" variant="ghost" className="-ml-2 px-2">
            <Trans>← Back</Trans>
          </NavButton>
        </div>
        <div className="flex flex-col gap-1">
          <ScreenHeading>
            <Trans>What&apos;s New</Trans>
          </ScreenHeading>
          <p className="text-slate-700 dark:text-slate-300">
            <Trans>Latest features and improvements</Trans>
          </p>
        </div>
      </header>
      {changelog.isPending ? <Spinner label={t`Loading updates...`} /> : null}
      {changelog.isError ? (
        <Card role="alert" className="border-red-300 dark:border-red-800">
          <h2 className="text-lg font-semibold text-red-800 dark:text-red-200">
            <Trans>Error Loading Updates</Trans>
          </h2>
          <p className="mt-2 text-slate-700 dark:text-slate-300">
            <Trans>We couldn&apos;t load the latest updates. Please try again later.</Trans>
          </p>
        </Card>
      ) : null}
      {changelog.isSuccess && changelog.data.length === 0 ? (
        <Card>
          <p className="text-slate-700 dark:text-slate-300">
            <Trans>No updates yet. Check back soon!</Trans>
          </p>
        </Card>
      ) : null}
      {changelog.isSuccess && changelog.data.length > 0 ? (
        <ol className="flex flex-col gap-5" aria-label={t`Releases`}>
          {changelog.data.map((entry, index) => (
            <li key={`${entry.version}-${index}`}>
              <ReleaseCard entry={entry} latest={index === 0} />
            </li>
          ))}
        </ol>
      ) : null}
    </ScreenShell>
  );
}

function ReleaseCard({ entry, latest }: { entry: ChangelogEntry; latest: boolean }) {
  return (
    <Card
      aria-label={t`Version ${entry.version}`}
      className={cn(latest && 'border-2 border-blue-700 dark:border-blue-400')}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span
          className={cn(
            'rounded-full px-2.5 py-0.5 text-sm font-semibold wrap-anywhere',
            latest
              ? 'bg-blue-700 text-white dark:bg-blue-600'
              : 'bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100',
          )}
        >
          <Trans>v{entry.version}</Trans>
        </span>
        {latest ? (
          <span className="rounded-full border border-green-700 px-2.5 py-0.5 text-sm font-semibold text-green-800 dark:border-green-400 dark:text-green-200">
            <Trans>Latest</Trans>
          </span>
        ) : null}
        <time dateTime={entry.date} className="text-sm text-slate-600 dark:text-slate-400">
          {formatReleaseDate(entry.date)}
        </time>
      </div>
      {/* The release notes themselves are written in English only. */}
      <h2 lang="en" className="mt-3 text-xl font-semibold break-words">
        {entry.title}
      </h2>
      <p lang="en" className="mt-2 text-slate-700 dark:text-slate-300">
        {entry.summary}
      </p>
      <ChangeList title={t`New Features`} items={entry.features} />
      <ChangeList title={t`Improvements`} items={entry.improvements} />
      <ChangeList title={t`Bug Fixes`} items={entry.fixes} />
    </Card>
  );
}

function ChangeList({ title, items }: { title: string; items: string[] | undefined }) {
  if (!items || items.length === 0) return null;
  return (
    <div className="mt-4">
      <h3 className="font-semibold">{title}</h3>
      <ul lang="en" className="mt-2 list-disc space-y-1 pl-5 text-slate-700 dark:text-slate-300">
        {items.map((item, i) => (
          <li key={i} className="break-words">
            {item}
          </li>
        ))}
      </ul>
    </div>
  );
}
