import type { SettingsVariable } from '../config.js';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  type FieldError,
  fieldError,
  type NestedFieldErrors,
  ValidationError,
} from '../core/errors.js';
import {
  SET_BY,
  type SettingPath,
  type SettingsSection,
  type SettingsValues,
} from '../core/settings.js';
import { CronExpressionError, parseCron } from '../tools/cron-schedule.js';
import { isEmail } from '../tools/email.js';

/**
 * PATCH /api/settings, as PocketBase saves its settings: the fields sent go over the values in
 * force, the whole is checked with PocketBase's rules (and ours for Gatehouse's own fields), and
 * either every change is saved or, on any field error, none. A field the environment sets may not
 * change (the environment would win anyway): sending its current value is no change, any other is
 * a field error naming the variable. Then every instance reads the settings again. A change is
 * in the security log of the operator who made it, by the fields' names (never their values).
 */

/** PocketBase's message when the new settings are refused. */
export const SAVE_FAILED = 'An error occurred while saving the new settings.';

/** What a change may send: per section, per field, a value, or null/absent for "as it is". */
export type SettingsChange = {
  [S in SettingsSection]?: { [F in keyof SettingsValues[S]]?: SettingsValues[S][F] | null } | null;
};

/** The field errors PocketBase's validators give that the other forms have no use for. */
const errors = {
  min: (threshold: number): FieldError => ({
    code: 'validation_min_greater_equal_than_required',
    message: `Must be no less than ${threshold}.`,
    params: { threshold },
  }),
  max: (threshold: number): FieldError => ({
    code: 'validation_max_less_equal_than_required',
    message: `Must be no greater than ${threshold}.`,
    params: { threshold },
  }),
  isUrl: (): FieldError => ({ code: 'validation_is_url', message: 'Must be a valid URL.' }),
  isHost: (): FieldError => ({
    code: 'validation_is_host',
    message: 'Must be a valid IP address or DNS name.',
  }),
  notIn: (): FieldError => ({ code: 'validation_in_invalid', message: 'Must be a valid value.' }),
  cron: (error: CronExpressionError): FieldError => ({
    code: 'validation_invalid_cron',
    message: sentence(error.message),
  }),
  lockedByEnv: (variable: SettingsVariable): FieldError => ({
    code: 'validation_locked_by_env',
    message: `Set by ${variable} in the server's environment: change it there.`,
  }),
};

/** PocketBase's inflector.Sentenize: a capital first letter and a full stop. */
function sentence(text: string): string {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return capital.endsWith('.') ? capital : `${capital}.`;
}

/** Who changes the settings: the operator and where from, for the security log. */
export interface SettingsActor {
  userId: string;
  client: Client;
}

/** Applies `change` (saved for every instance) or throws a ValidationError and saves nothing. */
export async function updateSettings(
  ctx: AppContext,
  change: SettingsChange,
  by: SettingsActor,
): Promise<void> {
  const { settings } = ctx;
  const current = settings.values();
  const next = structuredClone(current) as unknown as Record<string, Record<string, unknown>>;
  const problems: Record<string, Record<string, FieldError>> = {};
  const problem = (path: SettingPath, error: FieldError) => {
    const [section, field] = path.split('.') as [string, string];
    (problems[section] ??= {})[field] ??= error;
  };

  const changed: SettingPath[] = [];
  for (const [section, fields] of Object.entries(change)) {
    if (!fields || !(section in next)) continue;
    for (const [field, value] of Object.entries(fields)) {
      if (value === null || value === undefined || !(field in next[section]!)) continue;
      const path = `${section}.${field}` as SettingPath;
      if (
        value === (current as unknown as Record<string, Record<string, unknown>>)[section]![field]
      ) {
        continue;
      }
      if (settings.isLocked(path)) problem(path, errors.lockedByEnv(variableOf(path)));
      next[section]![field] = value;
      changed.push(path);
    }
  }

  for (const [path, error] of check(next as unknown as SettingsValues)) {
    if (!settings.isLocked(path)) problem(path, error);
  }
  if (Object.keys(problems).length > 0) {
    throw new ValidationError(SAVE_FAILED, problems as NestedFieldErrors);
  }
  if (changed.length === 0) return;

  await ctx.db.transaction().execute(async (trx) => {
    for (const path of changed) {
      const [section, field] = path.split('.') as [string, string];
      const value = settings.storedForm(path, next[section]![field]);
      await trx.deleteFrom('settings').where('key', '=', path).execute();
      await trx.insertInto('settings').values({ key: path, value }).execute();
    }
    await recordEvent(trx, {
      type: 'admin_settings_changed',
      userId: by.userId,
      client: by.client,
      detail: { actor: by.userId, fields: changed.join(', ') },
    });
  });
  await settings.reload();
  ctx.events.publish({ type: 'settings-changed' });
}

function variableOf(path: SettingPath): SettingsVariable {
  const entry = Object.entries(SET_BY).find(([, paths]) => paths.includes(path));
  return entry![0] as SettingsVariable;
}

/** Every field error of `values`, by PocketBase's rules where PocketBase has the field. */
function check(values: SettingsValues): Array<[SettingPath, FieldError]> {
  const found: Array<[SettingPath, FieldError]> = [];
  const add = (path: SettingPath, error: FieldError | undefined) => {
    if (error) found.push([path, error]);
  };
  const { meta, smtp, backups, batch, logs, gatehouse } = values;

  add('meta.appName', text(meta.appName, 255));
  add(
    'meta.appURL',
    !meta.appURL ? fieldError.required() : isWebUrl(meta.appURL) ? undefined : errors.isUrl(),
  );
  add('meta.senderName', text(meta.senderName, 255));
  add(
    'meta.senderAddress',
    !meta.senderAddress
      ? fieldError.required()
      : isEmail(meta.senderAddress)
        ? undefined
        : fieldError.isEmail(),
  );

  add(
    'smtp.host',
    smtp.enabled && !smtp.host
      ? fieldError.required()
      : smtp.host && !isHost(smtp.host)
        ? errors.isHost()
        : undefined,
  );
  add(
    'smtp.port',
    smtp.enabled && !smtp.port
      ? fieldError.required()
      : smtp.port < 0
        ? errors.min(0)
        : smtp.port > 65535
          ? errors.max(65535)
          : undefined,
  );
  add(
    'smtp.authMethod',
    smtp.authMethod && !['LOGIN', 'PLAIN'].includes(smtp.authMethod) ? errors.notIn() : undefined,
  );
  add('smtp.localName', smtp.localName && !isHost(smtp.localName) ? errors.isHost() : undefined);

  if (backups.cron) {
    try {
      parseCron(backups.cron);
    } catch (error) {
      if (!(error instanceof CronExpressionError)) throw error;
      add('backups.cron', errors.cron(error));
    }
  }
  add(
    'backups.cronMaxKeep',
    backups.cron && !backups.cronMaxKeep
      ? fieldError.required()
      : backups.cronMaxKeep < 1
        ? errors.min(1)
        : undefined,
  );
  // PocketBase's BatchConfig: a count and a time limit when batches are on; nothing below 0.
  add(
    'batch.maxRequests',
    batch.enabled && !batch.maxRequests
      ? fieldError.required()
      : batch.maxRequests < 0
        ? errors.min(0)
        : undefined,
  );
  add(
    'batch.timeout',
    batch.enabled && !batch.timeout
      ? fieldError.required()
      : batch.timeout < 0
        ? errors.min(0)
        : undefined,
  );
  add('batch.maxBodySize', batch.maxBodySize < 0 ? errors.min(0) : undefined);
  add('logs.maxDays', logs.maxDays < 0 ? errors.min(0) : undefined);

  // Gatehouse's own, with the ranges their environment variables have (config.ts).
  add('gatehouse.invitesPerMember', range(gatehouse.invitesPerMember, 0, 1000));
  add('gatehouse.sessionMaxDays', range(gatehouse.sessionMaxDays, 1, 3650));
  add('gatehouse.auditRetentionDays', range(gatehouse.auditRetentionDays, 1, 3650));
  return found;
}

/** PocketBase's Required and Length(1, max), in characters. */
function text(value: string, max: number): FieldError | undefined {
  if (!value) return fieldError.required();
  return [...value].length > max ? fieldError.lengthOutOfRange(1, max) : undefined;
}

function range(value: number, min: number, max: number): FieldError | undefined {
  return value < min || value > max ? fieldError.numberOutOfRange(min, max) : undefined;
}

/** An http(s) address with a host: where mail links can lead. */
function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** ozzo-validation's is.Host: an IP address or a DNS name. */
function isHost(value: string): boolean {
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(value)) {
    return value.split('.').every((part) => Number(part) <= 255);
  }
  if (value.includes(':')) {
    try {
      return new URL(`http://[${value}]/`).hostname !== '';
    } catch {
      return false;
    }
  }
  return (
    value.length <= 255 &&
    /^[a-zA-Z0-9_][a-zA-Z0-9_-]{0,62}(?:\.[a-zA-Z0-9_][a-zA-Z0-9_-]{0,62})*[._]?$/.test(value)
  );
}
