import { t } from '@lingui/core/macro';
import type { SettingPath } from './settings-api';

/**
 * The Settings screen's sections and the Backups screen's schedule (the same fields): each field
 * with its words. A section saves on its own, sending only the fields that changed.
 */

export type FieldKind = 'text' | 'email' | 'url' | 'number' | 'toggle' | 'password';

export interface SettingField {
  /** The field as the server names it: `smtp.host`. */
  path: SettingPath;
  label: string;
  kind: FieldKind;
  hint?: string;
  autoComplete?: string;
}

export interface SectionSpec {
  /** The card's id: the section links of the Settings screen lead here. */
  id: string;
  title: string;
  description: string;
  /** The save button's words, and what it says once saved. */
  save: string;
  saved: string;
  fields: readonly SettingField[];
}

export const APPLICATION = (): SectionSpec => ({
  id: 'application',
  title: t`Application`,
  description: t`The name and address members see in mail, and who the mail comes from.`,
  save: t`Save Application`,
  saved: t`Application settings saved.`,
  fields: [
    { path: 'meta.appName', label: t`App name`, kind: 'text', hint: t`The name mail uses.` },
    {
      path: 'meta.appURL',
      label: t`App URL`,
      kind: 'url',
      hint: t`Where the links in mail lead, for example https://gate.example.com.`,
    },
    { path: 'meta.senderName', label: t`Sender name`, kind: 'text' },
    { path: 'meta.senderAddress', label: t`Sender address`, kind: 'email' },
  ],
});

export const MAIL_SERVER = (): SectionSpec => ({
  id: 'mail-server',
  title: t`Mail Server`,
  description: t`The SMTP server that sends mail. With it turned off, mail is only written to the server’s log.`,
  save: t`Save Mail Server`,
  saved: t`Mail server settings saved.`,
  fields: [
    { path: 'smtp.enabled', label: t`Send mail through this SMTP server`, kind: 'toggle' },
    { path: 'smtp.host', label: t`Host`, kind: 'text', hint: t`For example smtp.example.com.` },
    { path: 'smtp.port', label: t`Port`, kind: 'number', hint: t`Usually 587, or 465 with TLS.` },
    { path: 'smtp.username', label: t`Username`, kind: 'text', autoComplete: 'off' },
    { path: 'smtp.password', label: t`Password`, kind: 'password' },
    {
      path: 'smtp.tls',
      label: t`Use TLS from the start`,
      kind: 'toggle',
      hint: t`For port 465. Otherwise the connection is secured when the server offers it.`,
    },
  ],
});

export const MEMBERS = (): SectionSpec => ({
  id: 'members',
  title: t`Members`,
  description: t`What a new member starts with, and how long a sign-in lasts.`,
  save: t`Save Members`,
  saved: t`Member settings saved.`,
  fields: [
    {
      path: 'gatehouse.invitesPerMember',
      label: t`Invite codes per new member`,
      kind: 'number',
      hint: t`From 0 to 1000.`,
    },
    {
      path: 'gatehouse.sessionMaxDays',
      label: t`Session length (days)`,
      kind: 'number',
      hint: t`How long a sign-in lasts at most, from 1 to 3650 days. New sign-ins only.`,
    },
  ],
});

/** Retention spans two sections of the settings: the security log's days and the request log's. */
export const RETENTION = (): SectionSpec => ({
  id: 'retention',
  title: t`Retention`,
  description: t`How long the logs keep their entries. Older entries are deleted every hour.`,
  save: t`Save Retention`,
  saved: t`Retention settings saved.`,
  fields: [
    {
      path: 'gatehouse.auditRetentionDays',
      label: t`Security log (days)`,
      kind: 'number',
      hint: t`From 1 to 3650 days.`,
    },
    {
      path: 'logs.maxDays',
      label: t`Request log (days)`,
      kind: 'number',
      hint: t`0 keeps no request log.`,
    },
  ],
});

export const BACKUP_SCHEDULE = (): SectionSpec => ({
  id: 'backup-schedule',
  title: t`Backup Schedule`,
  description: t`Backups made on their own, and how many of them are kept.`,
  save: t`Save Schedule`,
  saved: t`Backup schedule saved.`,
  fields: [
    {
      path: 'backups.cron',
      label: t`Schedule (cron expression, UTC)`,
      kind: 'text',
      autoComplete: 'off',
      hint: t`For example 0 3 * * * for every day at 03:00 UTC. Empty: no scheduled backups.`,
    },
    {
      path: 'backups.cronMaxKeep',
      label: t`Scheduled backups to keep`,
      kind: 'number',
      hint: t`The oldest scheduled ones beyond this are deleted. Backups made by hand are kept.`,
    },
  ],
});

/** PocketBase's batch requests (POST /api/batch): several changes to members in one go. */
export const BATCH = (): SectionSpec => ({
  id: 'batch',
  title: t`Batch Requests`,
  description: t`Lets an app send several changes to member records in one request, all saved or none. Off unless you turn it on.`,
  save: t`Save Batch Requests`,
  saved: t`Batch request settings saved.`,
  fields: [
    { path: 'batch.enabled', label: t`Allow batch requests`, kind: 'toggle' },
    {
      path: 'batch.maxRequests',
      label: t`Most requests in one batch`,
      kind: 'number',
      hint: t`At least 1 while batch requests are allowed.`,
    },
    {
      path: 'batch.timeout',
      label: t`Time limit (seconds)`,
      kind: 'number',
      hint: t`How long one batch may take, at least 1 while batch requests are allowed.`,
    },
    {
      path: 'batch.maxBodySize',
      label: t`Largest batch (bytes)`,
      kind: 'number',
      hint: t`0 allows up to 128 MiB.`,
    },
  ],
});

/** The Settings screen's sections, in its order. */
export const settingsSections = (): readonly SectionSpec[] => [
  APPLICATION(),
  MAIL_SERVER(),
  MEMBERS(),
  RETENTION(),
  BACKUP_SCHEDULE(),
  BATCH(),
];
