import { t } from '@lingui/core/macro';
import type { SettingsAnswer } from '../../../../contract/settings';
import { fieldTexts } from '../../lib/messages';
import { pb } from '../../lib/pb';

/**
 * The console's Settings screen and the Backups screen's schedule: PocketBase's settings API
 * (docs/api.md, "Settings"), operators only. A change needs a fresh session; the "Confirm it's you"
 * dialog comes by itself (lib/pb.ts). Every change and test email is in the operator's security log.
 */

export type Settings = SettingsAnswer;

/** The sections the console edits, and their fields (the answer's names). */
export interface EditableSettings {
  meta: Settings['meta'];
  smtp: Settings['smtp'] & { password: string };
  gatehouse: Settings['gatehouse'];
  logs: Settings['logs'];
  backups: Settings['backups'];
  batch: Settings['batch'];
}
export type SettingsSection = keyof EditableSettings;
/** A field as the server names it in `lockedByEnv` and in its errors: `smtp.host`. */
export type SettingPath = {
  [S in SettingsSection]: `${S}.${Extract<keyof EditableSettings[S], string>}`;
}[SettingsSection];

/** What a save sends: per section, only the fields that changed. */
export type SettingsChange = {
  [S in SettingsSection]?: Partial<EditableSettings[S]>;
};

/** The server's environment variable that sets each field (docs/api.md, `lockedByEnv`). */
const VARIABLES: Partial<Record<SettingPath, string>> = {
  'meta.appName': 'APP_NAME',
  'meta.appURL': 'APP_URL',
  'meta.senderName': 'MAIL_FROM',
  'meta.senderAddress': 'MAIL_FROM',
  'gatehouse.invitesPerMember': 'INVITES_PER_USER',
  'gatehouse.sessionMaxDays': 'SESSION_MAX_DAYS',
  'gatehouse.auditRetentionDays': 'AUDIT_RETENTION_DAYS',
  'logs.maxDays': 'LOGS_RETENTION_DAYS',
};

/**
 * The variable of the server's environment that sets `path`, when it does (then the field shows
 * its value and cannot change here); undefined otherwise.
 */
export function lockingVariable(settings: Settings, path: SettingPath): string | undefined {
  if (!settings.lockedByEnv.includes(path)) return undefined;
  return path.startsWith('smtp.') ? 'SMTP_URL' : (VARIABLES[path] ?? 'the environment');
}

export { settingsKeys, settingsQueryOptions } from './api';

/** Saves `change` (only what it holds) and answers every setting as they now are. */
export function saveSettings(change: SettingsChange): Promise<Settings> {
  return pb.send<Settings>('/api/settings', { method: 'PATCH', body: change });
}

/** The mails a test email can be (PocketBase's templates), in words. */
export const TEST_TEMPLATES = () =>
  [
    { value: 'verification', label: t`Email verification` },
    { value: 'password-reset', label: t`Password reset` },
    { value: 'email-change', label: t`Email change` },
    { value: 'otp', label: t`Sign-in code` },
    { value: 'login-alert', label: t`New sign-in notice` },
  ] as const;

/** Queues one mail of `template` to `email`, sent with the mail server settings in force. */
export async function sendTestEmail(email: string, template: string): Promise<void> {
  await pb.send('/api/settings/test/email', {
    method: 'POST',
    body: { email, template, collection: 'users' },
  });
}

/** What each refused field of `section` says (a 400 of PATCH /api/settings; lib/messages.ts). */
export function sectionFieldErrors(err: unknown, section: SettingsSection): Record<string, string> {
  return fieldTexts(err, section);
}
