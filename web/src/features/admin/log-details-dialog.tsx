import { Fragment, useEffect, useRef } from 'react';
import { Link } from '@tanstack/react-router';
import { Dialog } from '../../components/dialog';
import { Button } from '../../components/ui/button';
import { textLink } from '../../components/ui/screen';
import { serverDate } from '../../lib/dates';
import type { LogRow } from './logs-api';

/** Words for the data fields the log writes (docs/api.md, "Request logs"); others keep their key. */
const DATA_LABELS: Record<string, string> = {
  type: 'Type',
  method: 'Method',
  url: 'Path',
  status: 'Status',
  execTime: 'Duration (ms)',
  remoteIP: 'Address',
  userAgent: 'Browser',
  auth: 'Signed in as',
  authId: 'Member',
  job: 'Job',
  trigger: 'Started by',
  scheduled: 'Scheduled for',
  error: 'Error',
};

/** PocketBase's (slog's) levels in words. */
export function levelWords(level: number): string {
  if (level >= 8) return 'Error';
  if (level >= 4) return 'Warning';
  if (level >= 0) return 'Info';
  return 'Debug';
}

/** A log entry's time to the second, in the viewer's time zone. */
export function formatLogTime(created: string): string {
  const date = serverDate(created);
  if (!date) return created;
  return date.toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' });
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
    return <span className="text-slate-700 dark:text-slate-300">None</span>;
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
      title="Log Entry"
      description={row.message}
      onCancel={onClose}
      className="max-w-lg wrap-anywhere"
    >
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
        <dt className="font-semibold">ID</dt>
        <dd className="font-mono">{row.id}</dd>
        <dt className="font-semibold">Time</dt>
        <dd>
          {formatLogTime(row.created)}
          <span className="block text-xs text-slate-700 dark:text-slate-300">
            {row.created} (created)
          </span>
        </dd>
        <dt className="font-semibold">Level</dt>
        <dd>
          {levelWords(row.level)} ({row.level})
        </dd>
        <dt className="font-semibold">Message</dt>
        <dd>{row.message}</dd>
        {Object.entries(row.data).map(([name, value]) => (
          <Fragment key={name}>
            <dt className="font-semibold">
              {DATA_LABELS[name] ?? name}
              <span className="block font-mono text-xs font-normal text-slate-700 dark:text-slate-300">
                data.{name}
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
          Close
        </Button>
      </div>
    </Dialog>
  );
}
