import { useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card, TitledCard } from '../../components/ui/card';
import { ScreenHeading, textLink, usePageTitle } from '../../components/ui/screen';
import { useCurrentUser } from '../../lib/auth';
import { formatDateTime } from '../../lib/dates';
import { describeUserAgent } from '../../lib/user-agent';
import { EventListSection } from '../audit/event-list-section';
import {
  adminErrorMessage,
  adminKeys,
  CODES_PER_GIFT,
  deleteMember,
  disableMember,
  enableMember,
  giveCodes,
  meQueryOptions,
  memberQueryOptions,
  resendVerification,
  resetTwoStep,
  revokeCode,
  setOperator,
  treeQueryOptions,
  type MemberCode,
  type MemberDetail,
  type WaysIn,
} from './api';
import { ConfirmAction, type Question } from './confirm-action';
import { MemberBadges } from './member-badges';
import { SessionFacts } from '../sessions/session-facts-section';

/** How many of a member's invitees the page lists (the Invite Tree shows them all). */
const INVITEES_SHOWN = 50;

/** The action under way (its button shows a busy label; the others wait). */
type Running =
  | 'disable'
  | 'enable'
  | 'resend'
  | 'codes'
  | 'operator'
  | 'reset'
  | 'delete'
  | { revoke: string }
  | null;

/** An action that asks first (ConfirmAction): what the operator pressed. */
type Asked =
  | 'disable'
  | 'enable'
  | 'make-operator'
  | 'remove-operator'
  | 'reset'
  | 'delete'
  | { revoke: MemberCode };

/** The question each action asks, naming the member and what will happen. */
function questionFor(asked: Asked, member: MemberDetail): Question {
  const email = member.email;
  if (typeof asked === 'object') {
    return {
      title: `Revoke invite code ${asked.revoke.code} of ${email}?`,
      description: 'Nobody can sign up with it any more. This cannot be undone.',
      confirm: 'Yes, Revoke',
      busy: 'Revoking...',
    };
  }
  switch (asked) {
    case 'disable':
      return {
        title: `Disable ${email}?`,
        description:
          'They are signed out everywhere and cannot sign in until the account is enabled again. Their unused invite codes stop working until then.',
        confirm: 'Yes, Disable',
        busy: 'Disabling...',
      };
    case 'enable':
      return {
        title: `Enable ${email}?`,
        description: 'They can sign in again, and their unused invite codes work again.',
        confirm: 'Yes, Enable',
        busy: 'Enabling...',
        harmless: true,
      };
    case 'make-operator':
      return {
        title: `Make ${email} an operator?`,
        description:
          'They can use the operator console: see every member and the security log, disable, enable and delete accounts, reset two-step sign-in, and give and revoke invite codes.',
        confirm: 'Yes, Make Operator',
        busy: 'Saving...',
      };
    case 'remove-operator':
      return {
        title: `Remove ${email} as an operator?`,
        description: 'They can no longer use the operator console. Their account stays as it is.',
        confirm: 'Yes, Remove Operator',
        busy: 'Saving...',
        harmless: true,
      };
    case 'reset':
      return {
        title: `Reset two-step sign-in for ${email}?`,
        description: resetDescription(member.waysIn),
        confirm: 'Yes, Reset',
        busy: 'Resetting...',
      };
    case 'delete':
      return {
        title: `Delete ${email}?`,
        description: 'This action cannot be undone. All their data will be permanently deleted.',
        confirm: 'Yes, Delete',
        busy: 'Deleting...',
      };
  }
}

/** What Reset Two-Step Sign-In removes, and how they sign in afterwards. */
function resetDescription(ways: WaysIn): string {
  const passkeys =
    ways.passkeys === 1
      ? 'their passkey is removed'
      : `their ${ways.passkeys} passkeys are removed`;
  const removed = [
    ...(ways.twoStep ? ['two-step sign-in is turned off (their recovery codes stop working)'] : []),
    ...(ways.passkeys > 0 ? [passkeys] : []),
  ].join(' and ');
  const left = ways.password ? 'their password' : 'their connected account';
  return (
    `${removed.charAt(0).toUpperCase()}${removed.slice(1)}. They sign in with ${left} alone, ` +
    'and get an email about it. Do this only once you are sure the request comes from them.'
  );
}

/** "Password, two-step sign-in, 2 passkeys": how the member signs in. */
function waysInWords(ways: WaysIn): string {
  const words = [
    ...(ways.password ? ['Password'] : []),
    ...(ways.twoStep ? ['two-step sign-in'] : []),
    ...(ways.passkeys > 0 ? [ways.passkeys === 1 ? '1 passkey' : `${ways.passkeys} passkeys`] : []),
    ...(ways.providers > 0
      ? [ways.providers === 1 ? '1 connected account' : `${ways.providers} connected accounts`]
      : []),
  ];
  const text = words.join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Admin → a member's page: details, who invited them and whom they invited, their codes, sessions
 * and newest security events, and the operator's actions on the account.
 */
export function MemberScreen({ id }: { id: string }) {
  usePageTitle('Member');
  const viewer = useCurrentUser()?.id ?? '';
  const member = useQuery(memberQueryOptions(viewer, id));

  if (member.isPending) {
    return (
      <>
        <ScreenHeading>Member</ScreenHeading>
        <p className="text-slate-700 dark:text-slate-300">Loading member...</p>
      </>
    );
  }
  if (member.isError) {
    const gone = (member.error as { status?: unknown }).status === 404;
    return (
      <>
        <ScreenHeading>{gone ? 'Member Not Found' : 'Member'}</ScreenHeading>
        <Card>
          <p role="alert" className="text-red-800 dark:text-red-200">
            {gone
              ? 'There is no member with this id. The account may have been deleted.'
              : `We couldn't load this member. ${adminErrorMessage(member.error, 'Please try again later.')}`}
          </p>
          <p className="mt-3">
            <Link to="/admin" className={textLink}>
              Back to Members
            </Link>
          </p>
        </Card>
      </>
    );
  }
  return <MemberPage viewer={viewer} member={member.data} />;
}

function MemberPage({ viewer, member }: { viewer: string; member: MemberDetail }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const me = useQuery(meQueryOptions(viewer));
  const invitees = useQuery({
    ...treeQueryOptions(viewer, member.id),
    enabled: member.invitees > 0,
  });
  const [running, setRunning] = useState<Running>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The question is put in words when asked: the member's page may refresh while it is open.
  const [asked, setAsked] = useState<{ action: Asked; question: Question } | null>(null);

  const isSelf = member.id === viewer;
  const protectedAccount = member.isInitialUser || isSelf;
  const emailOf = new Map(invitees.data?.children.map((c) => [c.id, c.email]) ?? []);

  async function run(
    action: Exclude<Running, null>,
    request: () => Promise<unknown>,
    done: string,
    failed: string,
  ): Promise<boolean> {
    if (running) return false;
    setRunning(action);
    setNotice(null);
    setError(null);
    try {
      await request();
    } catch (err) {
      setError(adminErrorMessage(err, failed));
      setRunning(null);
      await queryClient.invalidateQueries({ queryKey: adminKeys.member(viewer, member.id) });
      return false;
    }
    await queryClient.invalidateQueries({ queryKey: adminKeys.of(viewer) });
    setRunning(null);
    setNotice(done);
    return true;
  }

  /** Opens the question of an action; nothing is sent until the operator confirms. */
  function ask(action: Asked) {
    if (running) return;
    setNotice(null);
    setError(null);
    setAsked({ action, question: questionFor(action, member) });
  }

  /** Runs the confirmed action; the question closes once it is done or failed. */
  async function onConfirm(action: Asked) {
    const email = member.email;
    if (typeof action === 'object') {
      const code = action.revoke;
      await run(
        { revoke: code.id },
        () => revokeCode(code.id),
        `Invite code ${code.code} has been revoked.`,
        'Failed to revoke the invite code. Please try again.',
      );
    } else if (action === 'disable') {
      await run(
        'disable',
        () => disableMember(member.id),
        `${email} has been disabled and signed out everywhere.`,
        'Failed to disable the account. Please try again.',
      );
    } else if (action === 'enable') {
      await run(
        'enable',
        () => enableMember(member.id),
        `${email} has been enabled and can sign in again.`,
        'Failed to enable the account. Please try again.',
      );
    } else if (action === 'make-operator' || action === 'remove-operator') {
      const make = action === 'make-operator';
      await run(
        'operator',
        () => setOperator(member.id, make),
        make ? `${email} is now an operator.` : `${email} is no longer an operator.`,
        'Failed to change the operator role. Please try again.',
      );
    } else if (action === 'reset') {
      await run(
        'reset',
        () => resetTwoStep(member.id),
        `Two-step sign-in of ${email} has been reset. They can sign in with their ${member.waysIn.password ? 'password' : 'connected account'} alone.`,
        'Failed to reset two-step sign-in. Please try again.',
      );
    } else {
      const deleted = await run(
        'delete',
        () => deleteMember(member.id),
        `${email} has been deleted.`,
        'Failed to delete the account. Please try again.',
      );
      if (deleted) {
        queryClient.removeQueries({ queryKey: adminKeys.member(viewer, member.id) });
        await navigate({ to: '/admin' });
        return;
      }
    }
    setAsked(null);
  }

  const busy = running !== null;
  const isRunning = (action: Exclude<Running, null>) =>
    typeof action === 'string' ? running === action : false;
  const canReset = member.waysIn.twoStep || member.waysIn.passkeys > 0;

  return (
    <>
      <div>
        <ScreenHeading className="wrap-anywhere">{member.email}</ScreenHeading>
        {/* A member with no badge: no empty line under the heading. */}
        <p className="mt-2 flex flex-wrap items-center gap-2 empty:hidden">
          <MemberBadges member={member} />
        </p>
        {/* The live regions stay in the page (so that they are announced) and take no room empty. */}
        <LiveMessage tone="success" alertClassName="mt-4">
          {notice}
        </LiveMessage>
        <LiveMessage tone="error" alertClassName="mt-4">
          {error}
        </LiveMessage>
      </div>

      <TitledCard title="Details">
        <dl className="grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-[max-content_1fr]">
          <Detail term="Email">{member.email}</Detail>
          <Detail term="User ID" mono>
            {member.id}
          </Detail>
          <Detail term="Status">{member.disabled ? 'Disabled' : 'Active'}</Detail>
          <Detail term="Email verified">{member.verified ? 'Yes' : 'No'}</Detail>
          <Detail term="Signs in with">{waysInWords(member.waysIn)}</Detail>
          <Detail term="Role">
            {member.isInitialUser ? 'Initial user' : member.isOperator ? 'Operator' : 'Member'}
          </Detail>
          <Detail term="Joined">{formatDateTime(member.created)}</Detail>
          <Detail term="Last sign-in">
            {member.lastSignIn ? formatDateTime(member.lastSignIn) : 'None on record'}
          </Detail>
          <Detail term="Invited by">
            {member.invitedBy ? (
              <Link
                to="/admin/members/$id"
                params={{ id: member.invitedBy.id }}
                className={textLink}
              >
                {member.invitedBy.email}
              </Link>
            ) : member.inviterDeleted ? (
              'An account that has since been deleted'
            ) : (
              'Nobody (the first account)'
            )}
          </Detail>
        </dl>
      </TitledCard>

      <TitledCard
        title="Actions"
        description={
          member.isInitialUser
            ? 'The initial user cannot be disabled, deleted or lose the operator role.'
            : isSelf
              ? 'This is your own account: another operator can disable it; delete it from your profile.'
              : undefined
        }
      >
        <div className="flex flex-wrap gap-2">
          {protectedAccount ? null : member.disabled ? (
            <Button className="min-w-32" disabled={busy} onClick={() => ask('enable')}>
              {isRunning('enable') ? 'Enabling...' : 'Enable'}
            </Button>
          ) : (
            <Button
              variant="danger"
              className="min-w-32"
              disabled={busy}
              onClick={() => ask('disable')}
            >
              {isRunning('disable') ? 'Disabling...' : 'Disable'}
            </Button>
          )}
          {member.verified ? null : (
            <Button
              variant="secondary"
              className="min-w-52"
              disabled={busy}
              onClick={() =>
                run(
                  'resend',
                  () => resendVerification(member.id),
                  `Verification email sent to ${member.email}.`,
                  'Failed to resend the verification email. Please try again.',
                )
              }
            >
              {isRunning('resend') ? 'Sending...' : 'Resend Verification'}
            </Button>
          )}
          {me.data?.isInitialUser && !member.isInitialUser ? (
            <Button
              variant="secondary"
              className="min-w-48"
              disabled={busy}
              onClick={() => ask(member.isOperator ? 'remove-operator' : 'make-operator')}
            >
              {isRunning('operator')
                ? 'Saving...'
                : member.isOperator
                  ? 'Remove Operator'
                  : 'Make Operator'}
            </Button>
          ) : null}
          {protectedAccount || !canReset ? null : (
            <Button
              variant="secondary"
              className="min-w-56"
              disabled={busy}
              onClick={() => ask('reset')}
            >
              {isRunning('reset') ? 'Resetting...' : 'Reset Two-Step Sign-In'}
            </Button>
          )}
        </div>
        {protectedAccount ? null : (
          <div>
            <Button
              variant="danger"
              className="w-full sm:w-auto"
              disabled={busy}
              onClick={() => ask('delete')}
            >
              {isRunning('delete') ? 'Deleting...' : 'Delete'}
            </Button>
          </div>
        )}
      </TitledCard>

      <TitledCard
        title="Invite Codes"
        description={`${member.codes.filter((c) => !c.used).length} unused, ${member.codes.filter((c) => c.used).length} used.`}
      >
        <div>
          <Button
            className="w-full sm:w-auto sm:min-w-52"
            disabled={busy}
            onClick={() =>
              run(
                'codes',
                () => giveCodes(member.id),
                `Gave ${CODES_PER_GIFT} new invite codes to ${member.email}.`,
                'Failed to give invite codes. Please try again.',
              )
            }
          >
            {isRunning('codes') ? 'Giving codes...' : `Give ${CODES_PER_GIFT} More Codes`}
          </Button>
        </div>
        {member.codes.length === 0 ? (
          <p className="text-slate-700 dark:text-slate-300">No invite codes.</p>
        ) : (
          <ul className="flex flex-col gap-2" aria-label="Their invite codes">
            {member.codes.map((code) => (
              <CodeRow
                key={code.id}
                code={code}
                usedByEmail={code.usedBy ? emailOf.get(code.usedBy) : undefined}
                revoking={
                  typeof running === 'object' && running !== null && running.revoke === code.id
                }
                disabled={busy}
                onRevoke={() => ask({ revoke: code })}
              />
            ))}
          </ul>
        )}
      </TitledCard>

      <TitledCard
        title="People They Invited"
        description={
          member.invitees === 0
            ? 'Nobody has signed up with their codes yet.'
            : `${member.invitees.toLocaleString('en-US')} ${member.invitees === 1 ? 'person' : 'people'} signed up with their codes.`
        }
      >
        {member.invitees > 0 && invitees.isPending ? (
          <p className="text-sm text-slate-700 dark:text-slate-300">Loading...</p>
        ) : null}
        {invitees.isError ? (
          <p role="alert" className="text-sm text-red-800 dark:text-red-200">
            {adminErrorMessage(invitees.error, "We couldn't load the people they invited.")}
          </p>
        ) : null}
        {invitees.isSuccess && invitees.data.children.length > 0 ? (
          <ul className="flex flex-col gap-1" aria-label="People they invited">
            {invitees.data.children.slice(0, INVITEES_SHOWN).map((child) => (
              <li key={child.id} className="flex flex-wrap items-center gap-2">
                <Link
                  to="/admin/members/$id"
                  params={{ id: child.id }}
                  className={`${textLink} wrap-anywhere`}
                >
                  {child.email}
                </Link>
                <MemberBadges member={child} />
              </li>
            ))}
          </ul>
        ) : null}
        {member.invitees > INVITEES_SHOWN ? (
          <p className="text-sm">
            <Link to="/admin/tree" className={textLink}>
              See everyone in the Invite Tree
            </Link>
          </p>
        ) : null}
      </TitledCard>

      <TitledCard title="Signed-In Devices">
        {member.sessions.length === 0 ? (
          <p className="text-slate-700 dark:text-slate-300">Not signed in anywhere.</p>
        ) : (
          <ul className="flex flex-col gap-2" aria-label="Their signed-in devices">
            {member.sessions.map((session) => (
              <li
                key={session.id}
                className="flex flex-col gap-1 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700"
              >
                <span className="font-semibold wrap-anywhere">
                  {describeUserAgent(session.userAgent)}
                </span>
                <SessionFacts session={session} />
              </li>
            ))}
          </ul>
        )}
      </TitledCard>

      <TitledCard title="Recent Security Events">
        {member.events.length === 0 ? (
          <p className="text-slate-700 dark:text-slate-300">No security events on record.</p>
        ) : (
          <EventListSection events={member.events} label="Their recent security events" />
        )}
        <p className="text-sm">
          <Link to="/admin/security-log" search={{ member: member.id }} className={textLink}>
            See all their events in the Security Log
          </Link>
        </p>
      </TitledCard>

      {asked ? (
        <ConfirmAction
          question={asked.question}
          running={busy}
          onCancel={() => setAsked(null)}
          onConfirm={() => void onConfirm(asked.action)}
        />
      ) : null}
    </>
  );
}

function Detail({ term, children, mono }: { term: string; children: ReactNode; mono?: boolean }) {
  return (
    <div className="contents">
      <dt className="text-sm font-medium text-slate-600 dark:text-slate-400">{term}</dt>
      <dd className={mono ? 'font-mono wrap-anywhere' : 'wrap-anywhere'}>{children}</dd>
    </div>
  );
}

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
  return (
    <li className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700">
      <div className="flex min-w-0 flex-col gap-0.5">
        <code id={codeId} className="font-mono text-sm font-semibold wrap-anywhere">
          {code.code}
        </code>
        <span className="text-sm text-slate-700 dark:text-slate-300">
          {code.used ? (
            <>
              Used {formatDateTime(code.used)}
              {code.usedBy ? (
                <>
                  {' by '}
                  <Link
                    to="/admin/members/$id"
                    params={{ id: code.usedBy }}
                    className={`${textLink} wrap-anywhere`}
                  >
                    {usedByEmail ?? 'this member'}
                  </Link>
                </>
              ) : null}
            </>
          ) : (
            `Unused, made ${formatDateTime(code.created)}`
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
          {revoking ? 'Revoking...' : 'Revoke'}
        </Button>
      )}
    </li>
  );
}
