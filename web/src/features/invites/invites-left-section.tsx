import { plural, t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { Link } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { TitledCard } from '../../components/ui/card';
import { QueryStatus } from '../../components/ui/query-status';
import { textLink } from '../../components/ui/screen';
import { formatDateTime, formatTimeAgo } from '../../lib/dates';
import type { UserRecord } from '../../lib/session';
import { useInviteCodes, type UsedInviteCode } from './api';
import { CopyInviteButton } from './copy-invite-button';
import { JoinedList } from './joined-list';
import { useSentMarks } from './sent-marks';

/** How many of the newest joiners Home shows (docs/decisions/0069); Profile lists them all. */
export const RECENT_JOINERS = 3;

/**
 * Home's "Your Invites": how many of the member's codes are unused, a Copy Link for the first of
 * them (the profile's own button and marks, so Profile shows it as copied too), and the few people
 * who joined most recently with the member's codes. The data and its realtime updates are the
 * profile's (`useInviteCodes`): only the member's own codes and the people who used them.
 */
export function InvitesLeftSection({ user }: { user: UserRecord }) {
  const codes = useInviteCodes(user.id);
  const marks = useSentMarks(user.id);
  const [error, setError] = useState<string | null>(null);
  const codeId = useId();
  const joinedId = useId();

  const next = codes.data?.codes[0];
  const left = codes.data?.codes.length ?? 0;
  const codesWord = plural(left, { one: 'invite code', other: 'invite codes' });
  return (
    <TitledCard title={t`Your Invites`} description={t`Each invite code lets one person join.`}>
      <QueryStatus
        query={codes}
        loading={t`Loading invite codes...`}
        failed={t`We couldn't load your invite codes. Please try again later.`}
      />
      <LiveMessage tone="error">{error}</LiveMessage>
      {codes.isSuccess ? (
        <>
          {next ? (
            <div className="flex flex-col gap-3">
              <p>
                <Trans>
                  You have <strong>{left}</strong> {codesWord} left.
                </Trans>
              </p>
              <div className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700">
                <div className="flex min-w-0 flex-col gap-1">
                  <span className="text-sm text-slate-700 dark:text-slate-300">
                    <Trans>Your next code</Trans>
                  </span>
                  <code id={codeId} className="font-mono text-sm font-semibold wrap-anywhere">
                    {next.code}
                  </code>
                  {marks.of(next.code) ? (
                    <span className="flex items-center gap-1 text-xs font-medium text-green-800 dark:text-green-300">
                      <span aria-hidden="true">✓</span>
                      {marks.of(next.code) === 'shared' ? t`Link shared` : t`Link copied`}
                    </span>
                  ) : null}
                </div>
                <CopyInviteButton
                  code={next.code}
                  label={t`Copy Link`}
                  describedBy={codeId}
                  onCopied={() => {
                    setError(null);
                    marks.mark(next.code, 'copied');
                  }}
                  onError={(link) =>
                    setError(t`Could not copy automatically. Your invite link: ${link}`)
                  }
                />
              </div>
              <p className="text-sm">
                <Link to="/profile" className={textLink}>
                  <Trans>See all your invite codes</Trans>
                </Link>
              </p>
            </div>
          ) : (
            <NoCodesLeft user={user} />
          )}
          <RecentJoiners used={codes.data.used} headingId={joinedId} />
        </>
      ) : null}
    </TitledCard>
  );
}

function NoCodesLeft({ user }: { user: UserRecord }) {
  if (user.isInitialUser === true) {
    return (
      <p>
        <Trans>
          You have no invite codes left.{' '}
          <Link to="/profile" className={textLink}>
            Generate more on your Profile
          </Link>
          .
        </Trans>
      </p>
    );
  }
  return (
    <p>
      <Trans>
        You have no invite codes left. If you need more, ask the person who runs this community.
      </Trans>
    </p>
  );
}

/**
 * The newest few who joined with the member's codes, newest first (the server's order), with how
 * long ago. Accounts deleted since are left out here (Profile still lists their codes).
 */
function RecentJoiners({ used, headingId }: { used: UsedInviteCode[]; headingId: string }) {
  const joined = used.filter((row) => row.member !== null);
  const shown = joined.slice(0, RECENT_JOINERS);
  return (
    <JoinedList
      used={shown}
      headingId={headingId}
      title={t`Joined Recently`}
      when={(row) => (
        <>
          <Trans>
            Joined{' '}
            <time dateTime={row.usedAt.replace(' ', 'T')} title={formatDateTime(row.usedAt)}>
              {formatTimeAgo(row.usedAt)}
            </time>
          </Trans>
        </>
      )}
    >
      {joined.length > shown.length ? (
        <p className="text-sm">
          <Link to="/profile" className={textLink}>
            <Trans>See everyone who joined with your codes</Trans>
          </Link>
        </p>
      ) : null}
    </JoinedList>
  );
}
