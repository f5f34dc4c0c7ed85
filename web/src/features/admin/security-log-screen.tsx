import { Trans } from '@lingui/react/macro';
import { plural, t } from '@lingui/core/macro';
import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Button } from '../../components/ui/button';
import { Card, TitledCard } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { ScreenHeading, textLink, usePageTitle } from '../../components/ui/screen';
import { useCurrentUser } from '../../lib/auth';
import { eventTypes, EventListSection } from '../audit/event-list-section';
import {
  adminErrorMessage,
  CLI_ACTOR,
  findMemberByEmail,
  logQueryOptions,
  memberQueryOptions,
  pageNumber,
  PER_PAGE,
  type LogEvent,
  type LogSearch,
} from './api';
import { PagedResults } from './pager';
import { SelectField } from './select-field';

const typeOptions = () => [
  { value: '', label: t`All events` },
  ...eventTypes().map(({ type, words }) => ({ value: type, label: words })),
];

/** Admin → Security Log: every member's security events, newest first, by member and type. */
export function SecurityLogScreen({
  search,
  onSearch,
}: {
  search: LogSearch;
  onSearch: (search: LogSearch) => void;
}) {
  usePageTitle(t`Security Log`);
  const viewer = useCurrentUser()?.id ?? '';
  const page = pageNumber(search);
  const first = useQuery(logQueryOptions(viewer, { ...search, page: undefined }));
  const current = useQuery({
    ...logQueryOptions(viewer, search),
    placeholderData: keepPreviousData,
  });
  // The member filter holds an id; show whose it is.
  const filtered = useQuery({
    ...memberQueryOptions(viewer, search.member ?? ''),
    enabled: Boolean(search.member),
  });
  const [email, setEmail] = useState('');
  const [finding, setFinding] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const total = first.data?.totalItems ?? -1;

  async function onFind(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (finding) return;
    setProblem(null);
    const wanted = email.trim();
    if (!wanted) {
      onSearch({ ...search, member: undefined, page: undefined });
      return;
    }
    setFinding(true);
    try {
      const member = await findMemberByEmail(wanted);
      if (member) {
        setEmail('');
        onSearch({ ...search, member: member.id, page: undefined });
      } else setProblem(t`No member has the email ${wanted}.`);
    } catch (err) {
      setProblem(adminErrorMessage(err, t`Failed to look up the member. Please try again.`));
    } finally {
      setFinding(false);
    }
  }

  return (
    <>
      <ScreenHeading>{t`Security Log`}</ScreenHeading>
      <Card className="flex flex-col gap-4">
        <form
          role="search"
          aria-label={t`Filter by member`}
          noValidate
          onSubmit={onFind}
          className="flex flex-col gap-3 sm:flex-row sm:items-end"
        >
          <div className="grow">
            <Field
              label={t`Member's email`}
              name="email"
              type="email"
              autoComplete="off"
              value={email}
              error={problem}
              onChange={(e) => setEmail(e.target.value)}
            />
          </div>
          <Button type="submit" className="sm:min-w-32" disabled={finding}>
            {finding ? t`Finding...` : t`Filter`}
          </Button>
        </form>
        {search.member ? (
          <p className="flex flex-wrap items-center gap-2 text-sm">
            <span>
              <Trans>
                Showing the events of{' '}
                <Link
                  to="/admin/members/$id"
                  params={{ id: search.member }}
                  className={`${textLink} wrap-anywhere`}
                >
                  {filtered.data?.email ?? search.member}
                </Link>
                .
              </Trans>
            </span>
            <Button
              variant="ghost"
              className="min-h-9 px-2 py-1"
              onClick={() => onSearch({ ...search, member: undefined, page: undefined })}
            >
              {t`Show Everyone`}
            </Button>
          </p>
        ) : null}
        <SelectField
          label={t`Event type`}
          options={typeOptions()}
          value={search.type ?? ''}
          onChange={(e) =>
            onSearch({ ...search, type: e.target.value || undefined, page: undefined })
          }
        />
      </Card>
      <TitledCard
        title={t`Events`}
        description={
          <span role="status">
            {total >= 0 ? plural(total, { one: '# event', other: '# events' }) : ''}
          </span>
        }
      >
        <PagedResults
          query={current}
          loadingText={t`Loading events...`}
          failedText={t`We couldn't load the security log.`}
          emptyText={t`No events match.`}
          page={page}
          perPage={PER_PAGE}
          total={total}
          pagerLabel={t`Event pages`}
          onPage={(next) => onSearch({ ...search, page: next > 1 ? String(next) : undefined })}
        >
          {(events) => (
            <EventListSection
              events={events}
              label={t`Security events`}
              member={(event) => (
                <>
                  {event.member && event.email ? (
                    <Link
                      to="/admin/members/$id"
                      params={{ id: event.member }}
                      className={textLink}
                    >
                      {event.email}
                    </Link>
                  ) : (
                    <span className="text-slate-700 dark:text-slate-300">
                      {event.member ? t`A deleted account` : t`No account`}
                    </span>
                  )}
                  {event.actor ? <ByActor actor={event.actor} /> : null}
                </>
              )}
            />
          )}
        </PagedResults>
      </TitledCard>
    </>
  );
}

/**
 * Who acted, after the member: " · by" their email (a link to their page), the command line, or
 * an operator who is gone. Each a whole message, so that a language words each as it must (German
 * "von der Kommandozeile", "von einem gelöschten Betreiber").
 */
function ByActor({ actor }: { actor: NonNullable<LogEvent['actor']> }) {
  if (actor.id === CLI_ACTOR) return <>{t` · by the command line`}</>;
  if (actor.email === null) {
    return (
      <Trans>
        {' '}
        · by <span className="text-slate-700 dark:text-slate-300">a deleted operator</span>
      </Trans>
    );
  }
  const email = actor.email;
  return (
    <Trans>
      {' '}
      · by{' '}
      <Link to="/admin/members/$id" params={{ id: actor.id }} className={textLink}>
        {email}
      </Link>
    </Trans>
  );
}
