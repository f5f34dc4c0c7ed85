import { plural, t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useId, useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import type { UserRecord } from '../../lib/session';
import { generateErrorMessage, useGenerateInviteCodes, useInviteCodes } from './api';
import { canShareLinks, CopyInviteButton, ShareInviteButton } from './copy-invite-button';
import { JoinedList } from './joined-list';
import { useSentMarks } from './sent-marks';

export function InviteCodesSection({ user }: { user: UserRecord }) {
  const codes = useInviteCodes(user.id);
  const generate = useGenerateInviteCodes(user.id);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const headingId = useId();
  const listId = useId();
  const joinedId = useId();
  const isInitialUser = user.isInitialUser === true;
  const marks = useSentMarks(user.id);
  const [share] = useState(canShareLinks);

  function onGenerate() {
    setNotice(null);
    setError(null);
    generate.mutate(undefined, {
      onSuccess: (result) =>
        setNotice(
          plural(result.generated, {
            one: 'Generated # new invite code.',
            other: 'Generated # new invite codes.',
          }),
        ),
      onError: (err) => setError(generateErrorMessage(err)),
    });
  }

  const generateButton = (label: string) => (
    <Button onClick={onGenerate} disabled={generate.isPending} className="min-w-40">
      {generate.isPending ? t`Generating...` : label}
    </Button>
  );

  return (
    <Card aria-labelledby={headingId} className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id={headingId} className="text-lg font-semibold">
          <Trans>Invite Codes</Trans>
        </h2>
        {isInitialUser ? generateButton(t`Generate 5 More`) : null}
      </div>
      <div>
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>
            Each code lets one person create an account. Copy Invite copies a sign-up link with the
            code in it.
          </Trans>
        </p>
        <LiveMessage tone="success" alertClassName="mt-3">
          {notice}
        </LiveMessage>
        <LiveMessage tone="error" alertClassName="mt-3">
          {error}
        </LiveMessage>
      </div>
      {codes.isPending ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>Loading invite codes...</Trans>
        </p>
      ) : null}
      {codes.isSuccess && codes.data.codes.length === 0 ? (
        <p className="text-slate-700 dark:text-slate-300">
          <Trans>No invite codes available.</Trans>
        </p>
      ) : null}
      {codes.isSuccess && codes.data.codes.length > 0 ? (
        <ul className="flex flex-col gap-2" aria-label={t`Your invite codes`}>
          {codes.data.codes.map((invite) => (
            <li
              key={invite.id}
              className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700"
            >
              <div className="flex min-w-0 flex-col gap-1">
                <code
                  id={`${listId}-${invite.id}`}
                  className="min-w-0 font-mono text-sm font-semibold wrap-anywhere"
                >
                  {invite.code}
                </code>
                {marks.of(invite.code) ? (
                  <span className="flex items-center gap-1 text-xs font-medium text-green-800 dark:text-green-300">
                    <span aria-hidden="true">✓</span>
                    {marks.of(invite.code) === 'shared' ? t`Link shared` : t`Link copied`}
                  </span>
                ) : null}
              </div>
              <div className="flex shrink-0 flex-wrap gap-2">
                <CopyInviteButton
                  code={invite.code}
                  describedBy={`${listId}-${invite.id}`}
                  onCopied={() => marks.mark(invite.code, 'copied')}
                  onError={(link) =>
                    setError(t`Could not copy automatically. Your invite link: ${link}`)
                  }
                />
                {share ? (
                  <ShareInviteButton
                    code={invite.code}
                    describedBy={`${listId}-${invite.id}`}
                    onShared={() => marks.mark(invite.code, 'shared')}
                  />
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      {/* docs/product.md gives the initial user both buttons; each generates 5 codes. */}
      {isInitialUser ? <div>{generateButton(t`Generate Codes`)}</div> : null}
      {codes.isSuccess ? <JoinedList used={codes.data.used} headingId={joinedId} /> : null}
    </Card>
  );
}
