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

export const APPLICATION: SectionSpec = {
  id: 'application',
  title: 'Application',
  description: 'The name and address members see in mail, and who the mail comes from.',
  save: 'Save Application',
  saved: 'Application settings saved.',
  fields: [
    { path: 'meta.appName', label: 'App name', kind: 'text', hint: 'The name mail uses.' },
    {
      path: 'meta.appURL',
      label: 'App URL',
      kind: 'url',
      hint: 'Where the links in mail lead, for example https://gate.example.com.',
    },
    { path: 'meta.senderName', label: 'Sender name', kind: 'text' },
    { path: 'meta.senderAddress', label: 'Sender address', kind: 'email' },
  ],
};

export const MAIL_SERVER: SectionSpec = {
  id: 'mail-server',
  title: 'Mail Server',
  description:
    'The SMTP server that sends mail. With it turned off, mail is only written to the server’s log.',
  save: 'Save Mail Server',
  saved: 'Mail server settings saved.',
  fields: [
    { path: 'smtp.enabled', label: 'Send mail through this SMTP server', kind: 'toggle' },
    { path: 'smtp.host', label: 'Host', kind: 'text', hint: 'For example smtp.example.com.' },
    { path: 'smtp.port', label: 'Port', kind: 'number', hint: 'Usually 587, or 465 with TLS.' },
    { path: 'smtp.username', label: 'Username', kind: 'text', autoComplete: 'off' },
    { path: 'smtp.password', label: 'Password', kind: 'password' },
    {
      path: 'smtp.tls',
      label: 'Use TLS from the start',
      kind: 'toggle',
      hint: 'For port 465. Otherwise the connection is secured when the server offers it.',
    },
  ],
};

export const MEMBERS: SectionSpec = {
  id: 'members',
  title: 'Members',
  description: 'What a new member starts with, and how long a sign-in lasts.',
  save: 'Save Members',
  saved: 'Member settings saved.',
  fields: [
    {
      path: 'gatehouse.invitesPerMember',
      label: 'Invite codes per new member',
      kind: 'number',
      hint: 'From 0 to 1000.',
    },
    {
      path: 'gatehouse.sessionMaxDays',
      label: 'Session length (days)',
      kind: 'number',
      hint: 'How long a sign-in lasts at most, from 1 to 3650 days. New sign-ins only.',
    },
  ],
};

/** Retention spans two sections of the settings: the security log's days and the request log's. */
export const RETENTION: SectionSpec = {
  id: 'retention',
  title: 'Retention',
  description: 'How long the logs keep their entries. Older entries are deleted every hour.',
  save: 'Save Retention',
  saved: 'Retention settings saved.',
  fields: [
    {
      path: 'gatehouse.auditRetentionDays',
      label: 'Security log (days)',
      kind: 'number',
      hint: 'From 1 to 3650 days.',
    },
    {
      path: 'logs.maxDays',
      label: 'Request log (days)',
      kind: 'number',
      hint: '0 keeps no request log.',
    },
  ],
};

export const BACKUP_SCHEDULE: SectionSpec = {
  id: 'backup-schedule',
  title: 'Backup Schedule',
  description: 'Backups made on their own, and how many of them are kept.',
  save: 'Save Schedule',
  saved: 'Backup schedule saved.',
  fields: [
    {
      path: 'backups.cron',
      label: 'Schedule (cron expression, UTC)',
      kind: 'text',
      autoComplete: 'off',
      hint: 'For example 0 3 * * * for every day at 03:00 UTC. Empty: no scheduled backups.',
    },
    {
      path: 'backups.cronMaxKeep',
      label: 'Scheduled backups to keep',
      kind: 'number',
      hint: 'The oldest scheduled ones beyond this are deleted. Backups made by hand are kept.',
    },
  ],
};

/** PocketBase's batch requests (POST /api/batch): several changes to members in one go. */
export const BATCH: SectionSpec = {
  id: 'batch',
  title: 'Batch Requests',
  description:
    'Lets an app send several changes to member records in one request, all saved or none. Off unless you turn it on.',
  save: 'Save Batch Requests',
  saved: 'Batch request settings saved.',
  fields: [
    { path: 'batch.enabled', label: 'Allow batch requests', kind: 'toggle' },
    {
      path: 'batch.maxRequests',
      label: 'Most requests in one batch',
      kind: 'number',
      hint: 'At least 1 while batch requests are allowed.',
    },
    {
      path: 'batch.timeout',
      label: 'Time limit (seconds)',
      kind: 'number',
      hint: 'How long one batch may take, at least 1 while batch requests are allowed.',
    },
    {
      path: 'batch.maxBodySize',
      label: 'Largest batch (bytes)',
      kind: 'number',
      hint: '0 allows up to 128 MiB.',
    },
  ],
};

/** The Settings screen's sections, in its order. */
export const SETTINGS_SECTIONS: readonly SectionSpec[] = [
  APPLICATION,
  MAIL_SERVER,
  MEMBERS,
  RETENTION,
  BACKUP_SCHEDULE,
  BATCH,
];
