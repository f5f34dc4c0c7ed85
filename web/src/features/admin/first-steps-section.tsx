import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { TitledCard } from '../../components/ui/card';
import { QueryStatus } from '../../components/ui/query-status';
import { textLink } from '../../components/ui/screen';
import type { UserRecord } from '../../lib/session';
import { adminErrorMessage, settingsQueryOptions } from './api';
import { useInviteCodes } from '../invites/api';

interface Step {
  key: string;
  title: string;
  done: boolean;
  /** What is so now, in words. */
  state: string;
  link: ReactNode;
}

/**
 * The initial user's first steps, ticked by what the server says (nothing to tick by hand): mail
 * goes through a mail server (not printed to its console), someone joined with a code, and backups
 * are scheduled. The settings are the console's own (GET /api/settings, the same query as its
 * Settings and Backups screens), the codes the profile's. Once all are done, one line says so.
 */
export function FirstStepsSection({ user }: { user: UserRecord }) {
  const settings = useQuery(settingsQueryOptions(user.id));
  const codes = useInviteCodes(user.id);
  const title = t`Getting Started`;

  if (!settings.isSuccess || !codes.isSuccess) {
    const failed = settings.isError ? settings : codes;
    return (
      <TitledCard title={title}>
        <QueryStatus
          query={{
            isPending: !settings.isError && !codes.isError,
            isError: settings.isError || codes.isError,
          }}
          loading={t`Loading your first steps...`}
          failed={t`We couldn't load your first steps. ${adminErrorMessage(failed.error, t`Please try again later.`)}`}
        />
      </TitledCard>
    );
  }

  const steps: Step[] = [
    {
      key: 'mail',
      title: t`Set up mail`,
      done: settings.data.smtp.enabled,
      state: settings.data.smtp.enabled
        ? t`Mail goes out through your mail server.`
        : t`Mail is not sent yet: the server prints each mail to its console.`,
      link: (
        <Link to="/admin/settings" hash="mail-server" className={textLink}>
          {t`Mail Server settings`}
        </Link>
      ),
    },
    {
      key: 'members',
      title: t`Invite your first members`,
      done: codes.data.used.length > 0,
      state:
        codes.data.used.length > 0
          ? t`Someone has joined with one of your invite codes.`
          : t`Nobody has joined yet. Send someone an invite link.`,
      link: (
        <Link to="/profile" className={textLink}>
          {t`Your invite codes`}
        </Link>
      ),
    },
    {
      key: 'backups',
      title: t`Schedule backups`,
      done: settings.data.backups.cron !== '',
      state:
        settings.data.backups.cron !== ''
          ? t`Backups are made automatically on a schedule.`
          : t`No backups are made automatically yet.`,
      link: (
        <Link to="/admin/backups" className={textLink}>
          {t`Backups`}
        </Link>
      ),
    },
  ];

  if (steps.every((step) => step.done)) {
    return (
      <TitledCard title={title}>
        <p className="flex items-start gap-2">
          <Trans>
            <span aria-hidden="true" className="font-semibold text-green-800 dark:text-green-300">
              ✓
            </span>
            Your community is set up: mail is sent, members have joined and backups are scheduled.
          </Trans>
        </p>
      </TitledCard>
    );
  }

  const left = steps.filter((step) => !step.done).length;
  return (
    <TitledCard
      title={title}
      description={t`A few things every community needs. Each ticks itself once it is done; ${left} of ${steps.length} still to do.`}
    >
      <ul className="flex flex-col gap-3" aria-label={t`First steps`}>
        {steps.map((step) => (
          <li
            key={step.key}
            className="flex items-start gap-3 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700"
          >
            <span
              aria-hidden="true"
              className={
                step.done
                  ? 'mt-0.5 inline-flex size-6 shrink-0 items-center justify-center rounded-full bg-green-700 text-sm font-bold text-white dark:bg-green-400 dark:text-slate-950'
                  : 'mt-0.5 inline-flex size-6 shrink-0 rounded-full border-2 border-slate-500 dark:border-slate-400'
              }
            >
              {step.done ? '✓' : null}
            </span>
            <div className="flex min-w-0 flex-col gap-1">
              <span className="flex flex-wrap items-baseline gap-x-2">
                <span className="font-medium">{step.title}</span>
                <span
                  className={
                    step.done
                      ? 'text-sm font-medium text-green-800 dark:text-green-300'
                      : 'text-sm text-slate-700 dark:text-slate-300'
                  }
                >
                  {step.done ? t`Done` : t`To do`}
                </span>
              </span>
              <span className="text-sm text-slate-700 dark:text-slate-300">{step.state}</span>
              <span className="text-sm">{step.link}</span>
            </div>
          </li>
        ))}
      </ul>
    </TitledCard>
  );
}
