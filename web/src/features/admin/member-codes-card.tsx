import { Trans } from '@lingui/react/macro';
import { t } from '@lingui/core/macro';
import { Link } from '@tanstack/react-router';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { textLink } from '../../components/ui/screen';
import { formatDateTime } from '../../lib/dates';
import { CODES_PER_GIFT, type MemberCode, type MemberDetail } from './api';
import type { MemberActions } from './use-member-actions';

/**
 * A member's page → Invite Codes: give them 5 more, and each code, used (when and by whom) or
 * unused (revoke it).
 */
export function MemberCodesCard({
  member,
  emailOf,
  actions,
}: {
  member: MemberDetail;
  /** The emails of the people they invited, by id, as far as they are loaded. */
  emailOf: Map<string, string>;
  actions: MemberActions;
}) {
  const { ask, busy, isRunning, isRevoking } = actions;
  return (
    <TitledCard
      title={t`Invite Codes`}
      description={`${member.codes.filter((c) => !c.used).length} unused, ${member.codes.filter((c) => c.used).length} used.`}
    >
      <div>
        <Button
          className="w-full sm:w-auto sm:min-w-52"
          disabled={busy}
          onClick={() => void actions.giveCodes()}
        >
          {isRunning('codes') ? t`Giving codes...` : t`Give ${CODES_PER_GIFT} More Codes`}
        </Button>
      </div>
      {member.codes.length === 0 ? (
        <p className="text-slate-700 dark:text-slate-300">{t`No invite codes.`}</p>
      ) : (
        <ul className="flex flex-col gap-2" aria-label={t`Their invite codes`}>
          {member.codes.map((code) => (
            <CodeRow
              key={code.id}
              code={code}
              usedByEmail={code.usedBy ? emailOf.get(code.usedBy) : undefined}
              revoking={isRevoking(code.id)}
              disabled={busy}
              onRevoke={() => ask({ revoke: code })}
            />
          ))}
        </ul>
      )}
    </TitledCard>
  );
}

/** One code: when it was made or used, and by whom; an unused one can be revoked. */
function CodeRow({
  code,
  usedByEmail,
  revoking,
  disabled,
  onRevoke,
}: {
  code: MemberCode;
  usedByEmail: string | undefined;
  revoking: boolean;
  disabled: boolean;
  onRevoke: () => void;
}) {
  const codeId = `code-${code.id}`;
  const usedAt = formatDateTime(code.used);
  const usedByName = usedByEmail ?? t`this member`;
  return (
    <li className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700">
      <div className="flex min-w-0 flex-col gap-0.5">
        <code id={codeId} className="font-mono text-sm font-semibold wrap-anywhere">
          {code.code}
        </code>
        <span className="text-sm text-slate-700 dark:text-slate-300">
          {code.used ? (
            code.usedBy ? (
              <Trans>
                Used {usedAt} by{' '}
                <Link
                  to="/admin/members/$id"
                  params={{ id: code.usedBy }}
                  className={`${textLink} wrap-anywhere`}
                >
                  {usedByName}
                </Link>
              </Trans>
            ) : (
              <Trans>Used {usedAt}</Trans>
            )
          ) : (
            t`Unused, made ${formatDateTime(code.created)}`
          )}
        </span>
      </div>
      {code.used ? null : (
        <Button
          variant="secondary"
          className="min-w-32 shrink-0"
          aria-describedby={codeId}
          disabled={disabled}
          onClick={onRevoke}
        >
          {revoking ? t`Revoking...` : t`Revoke`}
        </Button>
      )}
    </li>
  );
}
