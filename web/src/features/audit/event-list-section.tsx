import type { ReactNode } from 'react';
import { formatDateTime, serverDate } from '../../lib/dates';
import type { SecurityEvent } from './api';
import { describeEvent, eventSource } from './describe-event';

export { eventTypes } from './describe-event';

/**
 * Security events in plain words, newest first: what, when and from where (the operator console's
 * member page and Security Log). `member` adds a line naming whose event it is.
 */
export function EventListSection<E extends SecurityEvent>({
  events,
  label,
  member,
}: {
  events: readonly E[];
  label: string;
  member?: (event: E) => ReactNode;
}) {
  return (
    <ol
      className="flex flex-col divide-y divide-slate-200 dark:divide-slate-700"
      aria-label={label}
    >
      {events.map((event) => (
        <li key={event.id} className="flex flex-col gap-0.5 py-2 first:pt-0 last:pb-0">
          <span
            className={
              event.outcome === 'failure'
                ? 'font-medium text-red-800 wrap-anywhere dark:text-red-200'
                : 'font-medium wrap-anywhere'
            }
          >
            {describeEvent(event)}
          </span>
          {member ? <span className="text-sm wrap-anywhere">{member(event)}</span> : null}
          <span className="text-sm text-slate-700 wrap-anywhere dark:text-slate-300">
            <time dateTime={serverDate(event.created)?.toISOString()}>
              {formatDateTime(event.created)}
            </time>
            {event.type === 'sign_in' ? null : ` · ${eventSource(event)}`}
          </span>
        </li>
      ))}
    </ol>
  );
}
