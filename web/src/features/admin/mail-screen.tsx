import { formatNumber } from '../../lib/i18n';
import { t } from '@lingui/core/macro';
import { useState } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { ScreenHeading, usePageTitle } from '../../components/ui/screen';
import { useCurrentUser } from '../../lib/auth';
import { formatDateTime } from '../../lib/dates';
import {
  adminErrorMessage,
  adminKeys,
  outboxQueryOptions,
  PER_PAGE,
  retryMail,
  sendTestMail,
  type QueuedMail,
} from './api';
import { mailTransportQueryOptions } from './logs-api';
import { Badge } from './member-badges';
import { Pager } from './pager';
import { QueryStatus } from '../../components/ui/query-status';

/**
 * Admin → Mail: the outbox's queued and failing mails (refreshed every few seconds), Retry Now,
 * the last 24 hours' counts and a test mail to the operator. With no mail server set up (neither
 * SMTP_URL nor the settings' SMTP), it says that mail only goes to the server's console.
 */
export function MailScreen({ page, onPage }: { page: number; onPage: (page: number) => void }) {
  usePageTitle(t`Mail`);
  const user = useCurrentUser();
  const viewer = user?.id ?? '';
  const queryClient = useQueryClient();
  const outbox = useQuery({
    ...outboxQueryOptions(viewer, page),
    placeholderData: keepPreviousData,
  });
  const transport = useQuery(mailTransportQueryOptions(viewer));
  const [running, setRunning] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function run(key: string, request: () => Promise<void>, done: string, failed: string) {
    if (running) return;
    setRunning(key);
    setNotice(null);
    setError(null);
    try {
      await request();
      setNotice(done);
    } catch (err) {
      setError(adminErrorMessage(err, failed));
    }
    await queryClient.invalidateQueries({ queryKey: adminKeys.outbox(viewer) });
    setRunning(null);
  }

  const stats = outbox.data?.stats;
  return (
    <>
      <ScreenHeading>{t`Mail`}</ScreenHeading>
      {transport.data?.smtp === false ? (
        <Alert tone="info">
          {t`No mail server is set up, so mail is not sent: the server prints each mail to its console instead. Set SMTP_URL in the server’s environment, or a mail server in the settings, to send mail.`}
        </Alert>
      ) : null}
      <LiveMessage tone="success">{notice}</LiveMessage>
      <LiveMessage tone="error">{error}</LiveMessage>

      <TitledCard
        title={t`Last 24 Hours`}
        description={t`Delivery attempts, and the mail waiting now.`}
      >
        {stats ? (
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
            <Figure term={t`Sent`} value={stats.sentLast24h} />
            <Figure term={t`Failed`} value={stats.failedLast24h} />
            <Figure term={t`Queued`} value={stats.queued} />
            <Figure term={t`Failing`} value={stats.failing} />
          </dl>
        ) : null}
        <div>
          <Button
            variant="secondary"
            className="w-full sm:w-auto sm:min-w-44"
            disabled={running !== null}
            onClick={() =>
              run(
                'test',
                sendTestMail,
                user
                  ? t`Test email queued to ${user.email}. It should arrive in a moment.`
                  : t`Test email queued to you. It should arrive in a moment.`,
                t`Failed to send the test email. Please try again.`,
              )
            }
          >
            {running === 'test' ? t`Sending...` : t`Send Test Email`}
          </Button>
        </div>
      </TitledCard>

      <TitledCard
        title={t`Queued and Failing`}
        description={t`Mail not delivered yet, soonest first. A failed mail is tried again later, waiting longer each time; Retry Now tries it at once.`}
      >
        <QueryStatus
          query={outbox}
          loading={t`Loading mail...`}
          failed={t`We couldn't load the mail queue. ${adminErrorMessage(outbox.error, t`Please try again later.`)}`}
        />
        {outbox.isSuccess && outbox.data.items.length === 0 ? (
          <p className="text-slate-700 dark:text-slate-300">{t`No mail is waiting. All sent.`}</p>
        ) : null}
        {outbox.isSuccess && outbox.data.items.length > 0 ? (
          <ul className="flex flex-col gap-2" aria-label={t`Queued mail`}>
            {outbox.data.items.map((mail) => (
              <MailRow
                key={mail.id}
                mail={mail}
                retrying={running === mail.id}
                disabled={running !== null}
                onRetry={() =>
                  run(
                    mail.id,
                    () => retryMail(mail.id),
                    t`Retrying the mail to ${mail.recipient} now.`,
                    t`Failed to retry the mail. Please try again.`,
                  )
                }
              />
            ))}
          </ul>
        ) : null}
        {outbox.isSuccess ? (
          <Pager
            page={page}
            perPage={PER_PAGE}
            shown={outbox.data.items.length}
            total={outbox.data.stats.queued}
            label={t`Mail pages`}
            onPage={onPage}
          />
        ) : null}
      </TitledCard>
    </>
  );
}

function Figure({ term, value }: { term: string; value: number }) {
  return (
    <div className="flex flex-col rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700">
      <dt className="text-sm text-slate-700 dark:text-slate-300">{term}</dt>
      <dd className="text-2xl font-semibold">{formatNumber(value)}</dd>
    </div>
  );
}

function MailRow({
  mail,
  retrying,
  disabled,
  onRetry,
}: {
  mail: QueuedMail;
  retrying: boolean;
  disabled: boolean;
  onRetry: () => void;
}) {
  const subjectId = `mail-${mail.id}`;
  const failing = mail.attempts > 0;
  return (
    <li className="flex flex-col gap-2 rounded-md border border-slate-200 px-3 py-3 dark:border-slate-700">
      <div className="flex flex-wrap items-center gap-2">
        <span id={subjectId} className="font-semibold wrap-anywhere">
          {mail.subject}
        </span>
        {failing ? <Badge tone="red">{t`Failing`}</Badge> : <Badge tone="blue">{t`Queued`}</Badge>}
      </div>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 text-sm text-slate-700 dark:text-slate-300">
        <dt>{t`To`}</dt>
        <dd className="wrap-anywhere">{mail.recipient}</dd>
        <dt>{t`Attempts`}</dt>
        <dd>{mail.attempts}</dd>
        <dt>{t`Last error`}</dt>
        <dd className="wrap-anywhere">{mail.lastError ?? t`None`}</dd>
        <dt>{t`Next try`}</dt>
        <dd>{formatDateTime(mail.nextAttempt)}</dd>
        <dt>{t`Queued`}</dt>
        <dd>{formatDateTime(mail.created)}</dd>
      </dl>
      <div>
        <Button
          variant="secondary"
          className="w-full sm:w-auto sm:min-w-36"
          aria-describedby={subjectId}
          disabled={disabled}
          onClick={onRetry}
        >
          {retrying ? t`Retrying...` : t`Retry Now`}
        </Button>
      </div>
    </li>
  );
}
