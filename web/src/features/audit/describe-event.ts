import { i18n, type MessageDescriptor } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { describeUserAgent } from '../../lib/user-agent';
import type { SecurityEvent } from './api';

/** "Firefox on Linux, 203.0.113.7": where an event came from. */
export function eventSource(event: Pick<SecurityEvent, 'ip' | 'userAgent'>): string {
  const device = describeUserAgent(event.userAgent);
  return event.ip ? `${device}, ${event.ip}` : device;
}

const PLAIN: Record<string, MessageDescriptor> = {
  sign_up: msg`Account created`,
  verification_requested: msg`Verification email requested`,
  email_verified: msg`Email verified`,
  password_reset_requested: msg`Password reset requested`,
  otp_requested: msg`Sign-in code requested by email`,
  password_reset: msg`Password reset by email`,
  password_changed: msg`Password changed`,
  email_change_requested: msg`Email change requested`,
  email_changed: msg`Email changed`,
  session_ended: msg`Signed out another device`,
  sessions_ended: msg`Signed out all other devices`,
  signed_out: msg`Signed out`,
  account_deleted: msg`Account deleted`,
  data_exported: msg`Data downloaded`,
  second_step_required: msg`Password accepted; second step asked for`,
  totp_enabled: msg`Two-step sign-in turned on`,
  totp_disabled: msg`Two-step sign-in turned off`,
  recovery_codes_generated: msg`New recovery codes`,
  second_step_locked: msg`Second step locked after wrong codes`,
  passkey_added: msg`Passkey added`,
  passkey_renamed: msg`Passkey renamed`,
  passkey_removed: msg`Passkey removed`,
  admin_disable: msg`Account disabled by an operator`,
  admin_view_as: msg`Account viewed by an operator`,
  admin_view_as_ended: msg`Operator stopped viewing the account`,
  viewed_as: msg`Viewed as a member`,
  admin_enable: msg`Account enabled by an operator`,
  admin_delete: msg`Account deleted by an operator`,
  admin_make_operator: msg`Made an operator`,
  admin_remove_operator: msg`No longer an operator`,
  admin_give_codes: msg`Invite codes given by an operator`,
  admin_revoke_code: msg`Invite code revoked by an operator`,
  admin_reset_two_step: msg`Two-step sign-in reset by an operator`,
  admin_resend_verification: msg`Verification email resent by an operator`,
  admin_send_password_reset: msg`Password reset link sent by an operator`,
  admin_mark_verified: msg`Email marked verified by an operator`,
  admin_invite_sent: msg`Invite sent by email`,
  admin_members_exported: msg`Members exported as CSV`,
  admin_mail_retry: msg`Email retried by an operator`,
  admin_test_mail: msg`Test email sent`,
  admin_settings_changed: msg`Settings changed`,
  admin_backup_created: msg`Backup created`,
  admin_backup_uploaded: msg`Backup uploaded`,
  admin_backup_downloaded: msg`Backup downloaded`,
  admin_backup_deleted: msg`Backup deleted`,
  admin_backup_restored: msg`Backup restored`,
  provider_linked: msg`Sign-in provider connected`,
  provider_unlinked: msg`Sign-in provider disconnected`,
};

/** Every event type the log holds, with its name in plain words (the Security Log's filter). */
export function eventTypes(): Array<{ type: string; words: string }> {
  return [
    { type: 'sign_in', words: t`Sign-in` },
    ...Object.entries(PLAIN).map(([type, words]) => ({ type, words: i18n._(words) })),
  ];
}

/** An event in plain words: "Signed in from Firefox on Linux, 203.0.113.7", "Password changed". */
export function describeEvent(event: SecurityEvent): string {
  const failed = event.outcome === 'failure';
  if (event.type === 'sign_in') {
    const source = eventSource(event);
    return failed ? t`Failed sign-in attempt from ${source}` : t`Signed in from ${source}`;
  }
  if (event.type === 'viewed_as' && typeof event.detail.email === 'string') {
    return t`Viewed as ${event.detail.email}`;
  }
  const detail = describedDetail(event);
  if (detail) return detail;
  if (event.type === 'password_changed' && failed) {
    return t`Failed password change: wrong current password`;
  }
  if (event.type === 'email_changed' && failed) {
    return t`Failed email change: wrong password`;
  }
  const plain = PLAIN[event.type];
  const words = plain ? i18n._(plain) : capitalize(event.type.replace(/_/g, ' '));
  return failed ? t`${words} (failed)` : words;
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
  const plain = PLAIN[event.type];
  if (!plain || event.outcome === 'failure') return undefined;
  const words = i18n._(plain);
  if (event.type === 'admin_settings_changed' && text('fields')) {
    return `${words}: ${text('fields')}`;
  }
  if (event.type.startsWith('admin_backup_') && text('backup')) {
    return `${words}: ${text('backup')}`;
  }
  const to = text('to');
  if (event.type === 'admin_test_mail' && to) return t`${words} to ${to}`;
  return undefined;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
