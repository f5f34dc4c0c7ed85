import type { Kysely } from 'kysely';
import type { Config, SettingsVariable } from '../config.js';
import type { Database } from '../db/schema.js';
import type { SecretBox } from './secret-box.js';

/**
 * The app's settings (docs/decisions/0054-settings-in-the-database.md): what an operator may change
 * while the server runs (GET/PATCH /api/settings), in PocketBase's shape where PocketBase has the
 * field (`meta`, `smtp`, `backups`, `batch`, `logs`) and under `gatehouse` for the rest. Each value comes
 * from the environment when its variable is set (the environment wins, and the settings show the
 * field as locked), else from the database's `settings` table (one row per field, its value as
 * JSON), else its default. Every instance keeps them in memory and reads them again when another
 * one says they changed (the `settings-changed` event): the getters below never wait.
 */

export interface SettingsValues {
  meta: { appName: string; appURL: string; senderName: string; senderAddress: string };
  smtp: {
    enabled: boolean;
    host: string;
    port: number;
    username: string;
    password: string;
    /** '' (PLAIN), 'PLAIN' or 'LOGIN', as PocketBase. */
    authMethod: string;
    /** TLS from the start (port 465); false: STARTTLS when the server offers it. */
    tls: boolean;
    /** The name for EHLO; '' for the default. */
    localName: string;
  };
  backups: { cron: string; cronMaxKeep: number };
  /**
   * PocketBase's batch requests (POST /api/batch): off until an operator turns them on; how many
   * requests one batch may hold, its transaction's time limit in seconds (0: 3), and its largest
   * body in bytes (0: 128 MiB), as PocketBase reads each.
   */
  batch: { enabled: boolean; maxRequests: number; timeout: number; maxBodySize: number };
  logs: { maxDays: number };
  gatehouse: { invitesPerMember: number; sessionMaxDays: number; auditRetentionDays: number };
}

export type SettingsSection = keyof SettingsValues;

/** A field as `section.name`: the key of its row, and how locks and errors name it. */
export type SettingPath = {
  [S in SettingsSection]: `${S}.${keyof SettingsValues[S] & string}`;
}[SettingsSection];

/** The fields each variable sets (and locks) when the environment gives it. */
export const SET_BY: Record<SettingsVariable, readonly SettingPath[]> = {
  APP_NAME: ['meta.appName'],
  APP_URL: ['meta.appURL'],
  MAIL_FROM: ['meta.senderName', 'meta.senderAddress'],
  SMTP_URL: [
    'smtp.enabled',
    'smtp.host',
    'smtp.port',
    'smtp.username',
    'smtp.password',
    'smtp.authMethod',
    'smtp.tls',
    'smtp.localName',
  ],
  INVITES_PER_USER: ['gatehouse.invitesPerMember'],
  SESSION_MAX_DAYS: ['gatehouse.sessionMaxDays'],
  AUDIT_RETENTION_DAYS: ['gatehouse.auditRetentionDays'],
  LOGS_RETENTION_DAYS: ['logs.maxDays'],
};

/** The one secret among them: sealed in the database, never sent back. */
export const SECRET_FIELDS: readonly SettingPath[] = ['smtp.password'];

/** What the mail transport is built from: SMTP_URL as given, fields, or nothing (console). */
export type SmtpChoice = { url: string } | { fields: SettingsValues['smtp'] } | undefined;

type Stored = Partial<Record<SettingPath, unknown>>;

export class Settings {
  private stored: Stored = {};
  private readonly locked: ReadonlySet<SettingPath>;
  private readonly reloaded = new Set<() => void>();

  constructor(
    private readonly config: Config,
    private readonly db: Kysely<Database>,
    private readonly box: SecretBox,
  ) {
    this.locked = new Set(config.setByEnvironment.flatMap((name) => SET_BY[name]));
  }

  /** Reads the stored values again (at start, and when any instance changed them). */
  async reload(): Promise<void> {
    const rows = await this.db.selectFrom('settings').select(['key', 'value']).execute();
    const stored: Stored = {};
    for (const { key, value } of rows) {
      if (!isSettingPath(key)) continue;
      try {
        stored[key] = JSON.parse(value);
      } catch {
        // A row no version of the server wrote: the field keeps its default.
      }
    }
    this.stored = stored;
    for (const listener of this.reloaded) listener();
  }

  /**
   * Calls `listener` after every reload, the new values in force (at start, after a change here
   * or on another instance, after a restore): for what is set up from a setting, such as the
   * backups' scheduled job. It must not throw. Returns what removes it.
   */
  onReload(listener: () => void): () => void {
    this.reloaded.add(listener);
    return () => this.reloaded.delete(listener);
  }

  /** The fields the environment sets, which PATCH may not change (`smtp.host`, …). */
  get lockedByEnv(): SettingPath[] {
    return [...this.locked];
  }

  isLocked(path: SettingPath): boolean {
    return this.locked.has(path);
  }

  /** Every value in force now, the SMTP password included (never send this as it is). */
  values(): SettingsValues {
    const appName = this.text('meta.appName', this.config.appName);
    const appURL = this.text('meta.appURL', this.config.appUrl);
    const from = this.locked.has('meta.senderAddress') ? parseMailFrom(this.config.mailFrom) : null;
    const smtpUrl = this.locked.has('smtp.host') ? this.config.smtpUrl : undefined;
    return {
      meta: {
        appName,
        appURL,
        senderName: from?.name ?? this.text('meta.senderName', appName),
        senderAddress: from?.address ?? this.text('meta.senderAddress', defaultSender(appURL)),
      },
      smtp: smtpUrl ? smtpFromUrl(smtpUrl) : this.storedSmtp(),
      backups: {
        cron: this.text('backups.cron', ''),
        cronMaxKeep: this.number('backups.cronMaxKeep', 3),
      },
      batch: this.batch,
      logs: { maxDays: this.number('logs.maxDays', this.config.logsRetentionDays) },
      gatehouse: {
        invitesPerMember: this.number('gatehouse.invitesPerMember', this.config.invitesPerUser),
        sessionMaxDays: this.number('gatehouse.sessionMaxDays', this.config.sessionMaxDays),
        auditRetentionDays: this.number(
          'gatehouse.auditRetentionDays',
          this.config.auditRetentionDays,
        ),
      },
    };
  }

  /**
   * The name members see (APP_NAME, or `meta.appName`): in mail and notices, as the authenticator
   * app's issuer and the passkeys' relying party, and among the words a password may not be.
   */
  get appName(): string {
    return this.text('meta.appName', this.config.appName);
  }

  /** The public address mail links lead to, without a trailing slash (APP_URL, or `meta.appURL`). */
  get appUrl(): string {
    return this.text('meta.appURL', this.config.appUrl).replace(/\/+$/, '');
  }

  /** The From of every mail: MAIL_FROM as given, or the sender name and address. */
  get mailFrom(): string {
    if (this.locked.has('meta.senderAddress')) return this.config.mailFrom;
    const { senderName, senderAddress } = this.values().meta;
    return `"${senderName.replace(/["\\]/g, '\\$&')}" <${senderAddress}>`;
  }

  /** How mail goes out: SMTP_URL, the SMTP fields when enabled, or nowhere (the console). */
  get smtp(): SmtpChoice {
    if (this.locked.has('smtp.host'))
      return this.config.smtpUrl ? { url: this.config.smtpUrl } : undefined;
    const fields = this.storedSmtp();
    return fields.enabled ? { fields } : undefined;
  }

  /** The unused invite codes a new member starts with. */
  get invitesPerMember(): number {
    return this.number('gatehouse.invitesPerMember', this.config.invitesPerUser);
  }

  /** A session's absolute lifetime from sign-in. */
  get sessionMaxDays(): number {
    return this.number('gatehouse.sessionMaxDays', this.config.sessionMaxDays);
  }

  /** How long security events are kept. */
  get auditRetentionDays(): number {
    return this.number('gatehouse.auditRetentionDays', this.config.auditRetentionDays);
  }

  /** PocketBase's backups schedule: a cron expression ('' for none) and how many to keep. */
  get backupsCron(): string {
    return this.text('backups.cron', '');
  }

  get backupsCronMaxKeep(): number {
    return this.number('backups.cronMaxKeep', 3);
  }

  /** PocketBase's batch settings (off by default, as in PocketBase; its defaults otherwise). */
  get batch(): SettingsValues['batch'] {
    return {
      enabled: this.flag('batch.enabled', false),
      maxRequests: this.number('batch.maxRequests', 50),
      timeout: this.number('batch.timeout', 3),
      maxBodySize: this.number('batch.maxBodySize', 0),
    };
  }

  /** How long request logs are kept (PocketBase's `logs.maxDays`; 0: none kept). */
  get logsMaxDays(): number {
    return this.number('logs.maxDays', this.config.logsRetentionDays);
  }

  /** The stored form of a value (the password sealed), for the row of `path`. */
  storedForm(path: SettingPath, value: unknown): string {
    if (SECRET_FIELDS.includes(path) && typeof value === 'string' && value !== '') {
      return JSON.stringify(this.box.seal(value, `settings:${path}`));
    }
    return JSON.stringify(value);
  }

  private storedSmtp(): SettingsValues['smtp'] {
    const sealed = this.stored['smtp.password'];
    const password =
      typeof sealed === 'string' && sealed !== ''
        ? (this.box.open(sealed, 'settings:smtp.password') ?? '')
        : '';
    return {
      enabled: this.flag('smtp.enabled', false),
      host: this.text('smtp.host', ''),
      port: this.number('smtp.port', 587),
      username: this.text('smtp.username', ''),
      password,
      authMethod: this.text('smtp.authMethod', ''),
      tls: this.flag('smtp.tls', false),
      localName: this.text('smtp.localName', ''),
    };
  }

  /** The environment's value when it sets the field (`fromEnv`), else the stored one, else it. */
  private text(path: SettingPath, fallback: string): string {
    if (this.locked.has(path)) return fallback;
    const value = this.stored[path];
    return typeof value === 'string' ? value : fallback;
  }

  private number(path: SettingPath, fallback: number): number {
    if (this.locked.has(path)) return fallback;
    const value = this.stored[path];
    return typeof value === 'number' && Number.isInteger(value) ? value : fallback;
  }

  private flag(path: SettingPath, fallback: boolean): boolean {
    if (this.locked.has(path)) return fallback;
    const value = this.stored[path];
    return typeof value === 'boolean' ? value : fallback;
  }
}

const PATHS: ReadonlySet<string> = new Set([
  ...Object.values(SET_BY).flat(),
  'backups.cron',
  'backups.cronMaxKeep',
  'batch.enabled',
  'batch.maxRequests',
  'batch.timeout',
  'batch.maxBodySize',
  'logs.maxDays',
]);

function isSettingPath(key: string): key is SettingPath {
  return PATHS.has(key);
}

/** `Name <address>` or a bare address (MAIL_FROM), as the settings show it. */
function parseMailFrom(from: string): { name: string; address: string } {
  const match = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(from);
  if (match) return { name: match[1]!.trim(), address: match[2]!.trim() };
  return { name: '', address: from.trim() };
}

/** The sender when none is set: no-reply at the public address's host. */
function defaultSender(appUrl: string): string {
  let host = 'localhost';
  try {
    host = new URL(appUrl).hostname || host;
  } catch {
    // An address that is no URL: the default host.
  }
  return `no-reply@${host}`;
}

/** SMTP_URL as the settings' fields (shown, locked); the password is never shown. */
function smtpFromUrl(smtpUrl: string): SettingsValues['smtp'] {
  const url = new URL(smtpUrl);
  const tls = url.protocol === 'smtps:';
  return {
    enabled: true,
    host: url.hostname,
    port: url.port ? Number(url.port) : tls ? 465 : 587,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    authMethod: '',
    tls,
    localName: '',
  };
}
