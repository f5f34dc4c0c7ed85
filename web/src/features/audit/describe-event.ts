import { describeUserAgent } from '../../lib/user-agent';
import type { SecurityEvent } from './api';

/** "Firefox on Linux, 203.0.113.7": where an event came from. */
export function eventSource(event: Pick<SecurityEvent, 'ip' | 'userAgent'>): string {
  const device = describeUserAgent(event.userAgent);
  return event.ip ? `${device}, ${event.ip}` : device;
}

const PLAIN: Record<string, string> = {
  sign_up: 'Account created',
  verification_requested: 'Verification email requested',
  email_verified: 'Email verified',
  password_reset_requested: 'Password reset requested',
  otp_requested: 'Sign-in code requested by email',
  password_reset: 'Password reset by email',
  password_changed: 'Password changed',
  email_change_requested: 'Email change requested',
  email_changed: 'Email changed',
  session_ended: 'Signed out another device',
  sessions_ended: 'Signed out all other devices',
  signed_out: 'Signed out',
  account_deleted: 'Account deleted',
  data_exported: 'Data downloaded',
  second_step_required: 'Password accepted; second step asked for',
  totp_enabled: 'Two-step sign-in turned on',
  totp_disabled: 'Two-step sign-in turned off',
  recovery_codes_generated: 'New recovery codes',
  second_step_locked: 'Second step locked after wrong codes',
  passkey_added: 'Passkey added',
  passkey_renamed: 'Passkey renamed',
  passkey_removed: 'Passkey removed',
  admin_disable: 'Account disabled by an operator',
  admin_view_as: 'Account viewed by an operator',
  admin_view_as_ended: 'Operator stopped viewing the account',
  viewed_as: 'Viewed as a member',
  admin_enable: 'Account enabled by an operator',
  admin_delete: 'Account deleted by an operator',
  admin_make_operator: 'Made an operator',
  admin_remove_operator: 'No longer an operator',
  admin_give_codes: 'Invite codes given by an operator',
  admin_revoke_code: 'Invite code revoked by an operator',
  admin_reset_two_step: 'Two-step sign-in reset by an operator',
  admin_resend_verification: 'Verification email resent by an operator',
  admin_send_password_reset: 'Password reset link sent by an operator',
  admin_mark_verified: 'Email marked verified by an operator',
  admin_invite_sent: 'Invite sent by email',
  admin_members_exported: 'Members exported as CSV',
  admin_mail_retry: 'Email retried by an operator',
  admin_test_mail: 'Test email sent',
  admin_settings_changed: 'Settings changed',
  admin_backup_created: 'Backup created',
  admin_backup_uploaded: 'Backup uploaded',
  admin_backup_downloaded: 'Backup downloaded',
  admin_backup_deleted: 'Backup deleted',
  admin_backup_restored: 'Backup restored',
  provider_linked: 'Sign-in provider connected',
  provider_unlinked: 'Sign-in provider disconnected',
};

/** Every event type the log holds, with its name in plain words (the Security Log's filter). */
export const EVENT_TYPES: ReadonlyArray<{ type: string; words: string }> = [
  { type: 'sign_in', words: 'Sign-in' },
  ...Object.entries(PLAIN).map(([type, words]) => ({ type, words })),
];

/** An event in plain words: "Signed in from Firefox on Linux, 203.0.113.7", "Password changed". */
export function describeEvent(event: SecurityEvent): string {
  const failed = event.outcome === 'failure';
  if (event.type === 'sign_in') {
    return `${failed ? 'Failed sign-in attempt' : 'Signed in'} from ${eventSource(event)}`;
  }
  if (event.type === 'viewed_as' && typeof event.detail.email === 'string') {
    return `Viewed as ${event.detail.email}`;
  }
  const detail = describedDetail(event);
  if (detail) return detail;
  if (event.type === 'password_changed' && failed) {
    return 'Failed password change: wrong current password';
  }
  if (event.type === 'email_changed' && failed) {
    return 'Failed email change: wrong password';
  }
  const words = PLAIN[event.type] ?? capitalize(event.type.replace(/_/g, ' '));
  return failed ? `${words} (failed)` : words;
}

/**
 * What an operator's settings or backup action names: "Settings changed: meta.appName,
 * smtp.host" (the fields, never a value), "Backup restored: nightly.zip", "Test email sent to
 * desk@example.org".
 */
function describedDetail(event: SecurityEvent): string | undefined {
  const text = (key: string) => {
    const value = event.detail[key];
    return typeof value === 'string' && value ? value : undefined;
  };
  const words = PLAIN[event.type];
  if (!words || event.outcome === 'failure') return undefined;
  if (event.type === 'admin_settings_changed' && text('fields')) {
    return `${words}: ${text('fields')}`;
  }
  if (event.type.startsWith('admin_backup_') && text('backup')) {
    return `${words}: ${text('backup')}`;
  }
  if (event.type === 'admin_test_mail' && text('to')) return `${words} to ${text('to')}`;
  return undefined;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
