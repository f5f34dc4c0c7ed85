import { intlLocale } from '../../lib/i18n';
import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { Fragment, useEffect, useRef } from 'react';
import { Link } from '@tanstack/react-router';
import { Dialog } from '../../components/dialog';
import { Button } from '../../components/ui/button';
import { textLink } from '../../components/ui/screen';
import { serverDate } from '../../lib/dates';
import type { LogRow } from './logs-api';

/** Words for the data fields the log writes (docs/api.md, "Request logs"); others keep their key. */
const DATA_LABELS = (): Record<string, string> => ({
  type: t`Type`,
  method: t`Method`,
  url: t`Path`,
  status: t`Status`,
  execTime: t`Duration (ms)`,
  remoteIP: t`Address`,
  userAgent: t`Browser`,
  auth: t`Signed in as`,
  authId: t`Member`,
  job: t`Job`,
  trigger: t`Started by`,
  scheduled: t`Scheduled for`,
  error: t`Error`,
});

/** PocketBase's (slog's) levels in words. */
export function levelWords(level: number): string {
  if (level >= 8) return t`Error`;
  if (level >= 4) return t`Warning`;
  if (level >= 0) return t`Info`;
  return t`Debug`;
}

/** A log entry's time to the second, in the viewer's time zone. */
export function formatLogTime(created: string): string {
  const date = serverDate(created);
  if (!date) return created;
  return date.toLocaleString(intlLocale(), { dateStyle: 'medium', timeStyle: 'medium' });
}

function DataValue({ name, value }: { name: string; value: unknown }) {
  if (name === 'authId' && typeof value === 'string' && value) {
    return (
      <Link to="/admin/members/$id" params={{ id: value }} className={textLink}>
        {value}
      </Link>
    );
  }
  if (value === '' || value === null || value === undefined) {
    return <span className="text-slate-700 dark:text-slate-300">{t`None`}</span>;
  }
  if (typeof value === 'object') return <code>{JSON.stringify(value)}</code>;
  return <>{String(value)}</>;
}

/**
 * One log entry with every field it holds: id, time, level, message, and each of its data fields
 * under its name in words and its key (what a filter names). Close (or Escape) gives focus back to
 * the row's Details button.
 */
export function LogDetailsDialog({ row, onClose }: { row: LogRow; onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    close.current?.focus();
  }, []);
  return (
    <Dialog
      title={t`Log Entry`}
      description={row.message}
      onCancel={onClose}
      className="max-w-lg wrap-anywhere"
    >
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
        <dt className="font-semibold">{t`ID`}</dt>
        <dd className="font-mono">{row.id}</dd>
        <dt className="font-semibold">{t`Time`}</dt>
        <dd>
          {formatLogTime(row.created)}
          <span className="block text-xs text-slate-700 dark:text-slate-300">
            <Trans>{row.created} (created)</Trans>
          </span>
        </dd>
        <dt className="font-semibold">{t`Level`}</dt>
        <dd>
          {levelWords(row.level)} ({row.level})
        </dd>
        <dt className="font-semibold">{t`Message`}</dt>
        <dd>{row.message}</dd>
        {Object.entries(row.data).map(([name, value]) => (
          <Fragment key={name}>
            <dt className="font-semibold">
              {DATA_LABELS()[name] ?? name}
              <span className="block font-mono text-xs font-normal text-slate-700 dark:text-slate-300">
                <Trans>data.{name}</Trans>
              </span>
            </dt>
            <dd>
              <DataValue name={name} value={value} />
            </dd>
          </Fragment>
        ))}
      </dl>
      <div className="flex justify-end">
        <Button ref={close} variant="secondary" className="sm:min-w-28" onClick={onClose}>
          {t`Close`}
        </Button>
      </div>
    </Dialog>
  );
}
