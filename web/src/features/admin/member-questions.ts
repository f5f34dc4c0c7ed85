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
    case 'view-as':
      return {
        title: `View as ${email}?`,
        description:
          'You see the app as they do for up to 30 minutes, until you press Stop. They see it among their devices and in their activity. Their password, email, two-step sign-in and passkeys stay theirs to change.',
        confirm: 'Yes, View as Member',
        busy: 'Opening...',
        harmless: true,
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
