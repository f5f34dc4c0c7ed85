import { plural, t } from '@lingui/core/macro';
import type { MemberCode, MemberDetail, WaysIn } from './api';
import type { Question } from './confirm-action';

/** An action that asks first (ConfirmAction): what the operator pressed. */
export type Asked =
  | 'disable'
  | 'enable'
  | 'make-operator'
  | 'remove-operator'
  | 'reset'
  | 'delete'
  | 'view-as'
  | { revoke: MemberCode };

/** The question each action asks, naming the member and what will happen. */
export function questionFor(asked: Asked, member: MemberDetail): Question {
  const email = member.email;
  if (typeof asked === 'object') {
    return {
      title: t`Revoke invite code ${asked.revoke.code} of ${email}?`,
      description: t`Nobody can sign up with it any more. This cannot be undone.`,
      confirm: t`Yes, Revoke`,
      busy: t`Revoking...`,
    };
  }
  switch (asked) {
    case 'disable':
      return {
        title: t`Disable ${email}?`,
        description: t`They are signed out everywhere and cannot sign in until the account is enabled again. Their unused invite codes stop working until then.`,
        confirm: t`Yes, Disable`,
        busy: t`Disabling...`,
      };
    case 'enable':
      return {
        title: t`Enable ${email}?`,
        description: t`They can sign in again, and their unused invite codes work again.`,
        confirm: t`Yes, Enable`,
        busy: t`Enabling...`,
        harmless: true,
      };
    case 'make-operator':
      return {
        title: t`Make ${email} an operator?`,
        description: t`They can use the operator console: see every member and the security log, disable, enable and delete accounts, reset two-step sign-in, and give and revoke invite codes.`,
        confirm: t`Yes, Make Operator`,
        busy: t`Saving...`,
      };
    case 'remove-operator':
      return {
        title: t`Remove ${email} as an operator?`,
        description: t`They can no longer use the operator console. Their account stays as it is.`,
        confirm: t`Yes, Remove Operator`,
        busy: t`Saving...`,
        harmless: true,
      };
    case 'reset':
      return {
        title: t`Reset two-step sign-in for ${email}?`,
        description: resetDescription(member.waysIn),
        confirm: t`Yes, Reset`,
        busy: t`Resetting...`,
      };
    case 'view-as':
      return {
        title: t`View as ${email}?`,
        description: t`You see the app as they do for up to 30 minutes, until you press Stop. They see it among their devices and in their activity. Their password, email, two-step sign-in and passkeys stay theirs to change.`,
        confirm: t`Yes, View as Member`,
        busy: t`Opening...`,
        harmless: true,
      };
    case 'delete':
      return {
        title: t`Delete ${email}?`,
        description: t`This action cannot be undone. All their data will be permanently deleted.`,
        confirm: t`Yes, Delete`,
        busy: t`Deleting...`,
      };
  }
}

/**
 * What Reset Two-Step Sign-In removes, and how they sign in afterwards: whole sentences, so that
 * each language words them as a whole.
 */
function resetDescription(ways: WaysIn): string {
  const n = ways.passkeys;
  const removed = ways.twoStep
    ? n > 0
      ? plural(n, {
          one: 'Two-step sign-in is turned off (their recovery codes stop working) and their passkey is removed.',
          other:
            'Two-step sign-in is turned off (their recovery codes stop working) and their # passkeys are removed.',
        })
      : t`Two-step sign-in is turned off (their recovery codes stop working).`
    : n > 0
      ? plural(n, { one: 'Their passkey is removed.', other: 'Their # passkeys are removed.' })
      : '';
  const after = ways.password
    ? t`They sign in with their password alone, and get an email about it. Do this only once you are sure the request comes from them.`
    : t`They sign in with their connected account alone, and get an email about it. Do this only once you are sure the request comes from them.`;
  return removed ? `${removed} ${after}` : after;
}
