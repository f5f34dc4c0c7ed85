import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { newId } from '../tools/random.js';
import { nowString } from '../tools/time.js';
import type { Client } from './context.js';

/**
 * The security log: every sign-in attempt, credential change, session end and operator action,
 * with who, from where and how it went. Written in the same transaction as the change where
 * there is one. Never holds a secret: `detail` is a small JSON object of ids, names and reasons.
 */

type Db = Kysely<Database> | Transaction<Database>;

export type SecurityEventType =
  | 'sign_in'
  | 'sign_up'
  | 'verification_requested'
  | 'email_verified'
  | 'password_reset_requested'
  // A sign-in code was sent by email (`detail.otpId` names it; the code itself never appears).
  | 'otp_requested'
  | 'password_reset'
  | 'password_changed'
  | 'email_change_requested'
  | 'email_changed'
  | 'session_ended'
  | 'sessions_ended'
  | 'signed_out'
  // "Confirm it's you": `detail.method` is the proof (password, code, passkey, oauth2).
  | 'reauthenticated'
  | 'account_deleted'
  | 'data_exported'
  | 'second_step_required'
  | 'totp_enabled'
  | 'totp_disabled'
  | 'recovery_codes_generated'
  | 'second_step_locked'
  | 'passkey_added'
  | 'passkey_renamed'
  | 'passkey_removed'
  // Sign-in providers: `detail.provider` names it.
  | 'provider_linked'
  | 'provider_unlinked'
  // Operator actions: `user_id` is the member acted on, `detail.actor` the operator's id or `cli`.
  | 'admin_disable'
  // An operator viewing as the member (docs/decisions/0056): started, and ended by their Stop
  // (`detail.session` names the view's session; `detail.reason` when it ended otherwise).
  | 'admin_view_as'
  | 'admin_view_as_ended'
  // The operator's side of it: `user_id` is the operator, `detail.member` and `detail.email` the
  // member viewed (the address they had then).
  | 'viewed_as'
  | 'admin_enable'
  | 'admin_delete'
  | 'admin_make_operator'
  | 'admin_remove_operator'
  | 'admin_give_codes'
  | 'admin_revoke_code'
  | 'admin_reset_two_step'
  | 'admin_resend_verification'
  // The console's Members table: a password-reset link sent, an email marked verified.
  | 'admin_send_password_reset'
  | 'admin_mark_verified'
  // `user_id` is the operator: an invite code of theirs mailed (`detail.code`, its id), the
  // members exported as CSV.
  | 'admin_invite_sent'
  | 'admin_members_exported'
  | 'admin_mail_retry'
  // A test email: from the Mail page to the operator, or from the settings (`detail.to`, the
  // address, and `detail.template`).
  | 'admin_test_mail'
  // The app's settings and backups: `user_id` is the operator who acted (as `detail.actor`).
  // `detail.fields` names the settings changed ("meta.appName, smtp.host"), never a value.
  | 'admin_settings_changed'
  // `detail.backup` is the backup's file name.
  | 'admin_backup_created'
  | 'admin_backup_uploaded'
  | 'admin_backup_downloaded'
  | 'admin_backup_deleted'
  | 'admin_backup_restored';

export interface SecurityEventInput {
  type: SecurityEventType;
  userId: string | null;
  client: Client;
  outcome?: 'success' | 'failure';
  detail?: Record<string, string | number | boolean>;
}

export async function recordEvent(db: Db, event: SecurityEventInput): Promise<void> {
  await db
    .insertInto('security_events')
    .values({
      id: newId(),
      created: nowString(),
      type: event.type,
      user_id: event.userId,
      ip: event.client.ip,
      user_agent: event.client.userAgent,
      outcome: event.outcome ?? 'success',
      detail: JSON.stringify(event.detail ?? {}),
    })
    .execute();
}
