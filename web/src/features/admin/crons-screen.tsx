import { Trans } from '@lingui/react/macro';
import { t } from '@lingui/core/macro';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { QueryStatus } from '../../components/ui/query-status';
import { ScreenHeading, textLink, usePageTitle } from '../../components/ui/screen';
import { useCurrentUser } from '../../lib/auth';
import { adminErrorMessage } from './api';
import { cronInWords } from './cron-words';
import { cronsQueryOptions, runCron, type CronJob } from './logs-api';

/** What each of the server's own jobs does, for the operator (docs/operations.md). */
const JOB_WORDS = (): Record<string, string> => ({
  sessions_cleanup: t`Deletes sessions past their end.`,
  challenges_cleanup: t`Deletes sign-ins left half-way: second steps, passkey challenges and emailed codes past their end.`,
  security_events_retention: t`Deletes security events older than the settings keep them.`,
  mail_log_cleanup: t`Deletes the mail delivery counts older than a day.`,
  logs_retention: t`Deletes log entries older than the settings keep them.`,
  oidc_cleanup: t`Deletes what the apps' sign-ins left past their end (codes, tokens), and signing keys retired long ago.`,
  oidc_sessions_cleanup: t`Signs members out of the apps when their sign-in here ended without saying so (it ran out, say).`,
  __pbAutoBackup__: t`Makes a backup, and keeps only the newest scheduled ones (the settings say how many).`,
});

/**
 * Admin → Crons: the scheduled jobs (PocketBase's crons API), each with its schedule in words
 * where it reads easily, and Run Now, which starts it at once (the server answers before it ends;
 * its run is in Logs).
 */
export function CronsScreen() {
  usePageTitle(t`Crons`);
  const viewer = useCurrentUser()?.id ?? '';
  const jobs = useQuery(cronsQueryOptions(viewer));
  const [running, setRunning] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function run(id: string) {
    if (running) return;
    setRunning(id);
    setNotice(null);
    setError(null);
    try {
      await runCron(id);
      setNotice(t`Started ${id}. Its run will be in the Logs when it ends.`);
    } catch (err) {
      setError(adminErrorMessage(err, t`Failed to start ${id}. Please try again.`));
    } finally {
      setRunning(null);
    }
  }

  return (
    <>
      <ScreenHeading>{t`Crons`}</ScreenHeading>
      <LiveMessage tone="success">{notice}</LiveMessage>
      <LiveMessage tone="error">{error}</LiveMessage>
      <TitledCard
        title={t`Scheduled Jobs`}
        description={
          <>
            <Trans>
              Times are in UTC. With several servers, one of them runs each scheduled time. Each run
              is in the{' '}
              <Link to="/admin/logs" search={{ filter: 'data.type = "cron"' }} className={textLink}>
                Logs
              </Link>
              .
            </Trans>
          </>
        }
      >
        <QueryStatus
          query={jobs}
          loading={t`Loading jobs...`}
          failed={t`We couldn't load the jobs. ${adminErrorMessage(jobs.error, t`Please try again later.`)}`}
        />
        {jobs.isSuccess && jobs.data.length === 0 ? (
          <p className="text-slate-700 dark:text-slate-300">{t`No jobs are scheduled.`}</p>
        ) : null}
        {jobs.isSuccess && jobs.data.length > 0 ? (
          <ul className="flex flex-col gap-2" aria-label={t`Jobs`}>
            {jobs.data.map((job) => (
              <JobRow
                key={job.id}
                job={job}
                running={running === job.id}
                disabled={running !== null}
                onRun={() => void run(job.id)}
              />
            ))}
          </ul>
        ) : null}
      </TitledCard>
    </>
  );
}

function JobRow({
  job,
  running,
  disabled,
  onRun,
}: {
  job: CronJob;
  running: boolean;
  disabled: boolean;
  onRun: () => void;
}) {
  const nameId = `job-${job.id}`;
  const words = cronInWords(job.expression);
  const what = JOB_WORDS()[job.id];
  return (
    <li className="flex flex-col gap-3 rounded-md border border-slate-200 px-3 py-3 sm:flex-row sm:items-center sm:justify-between dark:border-slate-700">
      <div className="flex min-w-0 flex-col gap-1">
        <span id={nameId} className="font-mono font-semibold wrap-anywhere">
          {job.id}
        </span>
        <span className="text-sm">
          {words ?? t`Schedule`}: <code className="font-mono">{job.expression}</code>
        </span>
        {what ? <span className="text-sm text-slate-700 dark:text-slate-300">{what}</span> : null}
      </div>
      <Button
        variant="secondary"
        className="w-full shrink-0 sm:w-auto sm:min-w-32"
        aria-describedby={nameId}
        disabled={disabled}
        onClick={onRun}
      >
        {running ? t`Starting...` : t`Run Now`}
      </Button>
    </li>
  );
}
