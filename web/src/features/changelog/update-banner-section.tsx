import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useState } from 'react';
import { Button } from '../../components/ui/button';
import { NavButton } from '../../components/ui/nav-button';
import { readLastViewedVersion, storeLastViewedVersion, useChangelog } from './api';

/**
 * "New Update": shown while the latest release differs from the last one the user viewed. A
 * browser that has viewed none yet (a brand-new member's first visit) records the latest one
 * silently instead: there is nothing new to them (docs/decisions/0066).
 */
export function UpdateBannerSection() {
  const changelog = useChangelog();
  const [lastViewed, setLastViewed] = useState(readLastViewedVersion);
  const latest = changelog.data?.[0];
  useEffect(() => {
    if (!latest || lastViewed !== null) return;
    storeLastViewedVersion(latest.version);
    setLastViewed(latest.version);
  }, [latest, lastViewed]);
  if (!latest || lastViewed === null || latest.version === lastViewed) return null;

  const markViewed = () => {
    storeLastViewedVersion(latest.version);
    setLastViewed(latest.version);
  };

  return (
    <section
      aria-labelledby="update-banner-title"
      className="relative rounded-xl border border-blue-300 bg-blue-50 p-4 pr-14 text-blue-950 dark:border-blue-800 dark:bg-blue-950 dark:text-blue-50"
    >
      <h2 id="update-banner-title" className="font-semibold">
        <Trans>New Update</Trans>
      </h2>
      <p className="mt-1 break-words">
        <span className="font-semibold">
          <Trans>v{latest.version}</Trans>
        </span>
        : <span lang="en">{latest.title}</span>
      </p>
      <NavButton to="/whats-new" className="mt-3" onClick={markViewed}>
        <Trans>View What&apos;s New</Trans>
      </NavButton>
      <Button
        variant="ghost"
        aria-label={t`Dismiss update`}
        className="absolute top-2 right-2 size-11 px-0 text-xl text-blue-950 dark:text-blue-50 dark:hover:bg-blue-900"
        onClick={markViewed}
      >
        <span aria-hidden="true">×</span>
      </Button>
    </section>
  );
}
