import { t } from '@lingui/core/macro';
import { cn } from '../../components/ui/cn';

const tones = {
  red: 'bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100',
  green: 'bg-green-100 text-green-900 dark:bg-green-900 dark:text-green-100',
  amber: 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
  blue: 'bg-blue-100 text-blue-900 dark:bg-blue-900 dark:text-blue-100',
} as const;

export function Badge({ tone, children }: { tone: keyof typeof tones; children: string }) {
  return (
    <span className={cn('rounded-full px-2 py-0.5 text-xs font-semibold', tones[tone])}>
      {children}
    </span>
  );
}

/** A member's state and role as badges: Disabled, Unverified, Initial User, Operator. */
export function MemberBadges({
  member,
}: {
  member: { disabled: boolean; verified?: boolean; isOperator: boolean; isInitialUser?: boolean };
}) {
  return (
    <>
      {member.disabled ? <Badge tone="red">{t`Disabled`}</Badge> : null}
      {member.verified === false ? <Badge tone="amber">{t`Unverified`}</Badge> : null}
      {member.isInitialUser ? (
        <Badge tone="blue">{t`Initial User`}</Badge>
      ) : member.isOperator ? (
        <Badge tone="blue">{t`Operator`}</Badge>
      ) : null}
    </>
  );
}
