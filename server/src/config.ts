import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

/**
 * Environment → typed, validated configuration. Every variable an operator can set is here,
 * with its default; a bad value stops the server at start with a message naming the variable.
 * Plain checks, no validation library: this runs at every start and every CLI command
 * (docs/decisions/0065).
 */

/** Reads one variable: its value, or a message in `problems` (and any value, never used). */
type Field<T> = (value: string | undefined, problems: string[]) => T;

/** A value the caller never uses: `problems` holds why there is none. */
const REFUSED = undefined as never;

const text: Field<string | undefined> = (value) => value;

const flag =
  (name: string, fallback: boolean): Field<boolean> =>
  (value, problems) => {
    if (value === undefined || value === '') return fallback;
    const v = value.trim().toLowerCase();
    if (['on', 'true', '1', 'yes'].includes(v)) return true;
    if (['off', 'false', '0', 'no'].includes(v)) return false;
    problems.push(`${name} must be "on" or "off", got "${value}"`);
    return REFUSED;
  };

const int =
  (name: string, fallback: number, min: number, max: number): Field<number> =>
  (value, problems) => {
    if (value === undefined || value === '') return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
      return REFUSED;
    }
    return n;
  };

const url =
  (name: string, protocols: string[]): Field<string | undefined> =>
  (value, problems) => {
    if (value === undefined || value.trim() === '') return undefined;
    let parsed: URL;
    try {
      parsed = new URL(value.trim());
    } catch {
      problems.push(`${name} is not a valid URL`);
      return REFUSED;
    }
    if (!protocols.includes(parsed.protocol)) {
      problems.push(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
      return REFUSED;
    }
    return value.trim();
  };

const oneOf =
  <T extends string>(values: readonly T[], message: string): Field<T | undefined> =>
  (value, problems) => {
    if (value === undefined) return undefined;
    if ((values as readonly string[]).includes(value)) return value as T;
    problems.push(message);
    return REFUSED;
  };

/**
 * TOKEN_SECRET values this repository shows as examples (deploy/compose.env.example). Anyone can
 * read them, and whoever knows the secret can sign a session for any account, so a server given
 * one refuses to start. A unit test (server/test/unit/example-secrets.test.ts) reads every example
 * file and the docs and checks that each TOKEN_SECRET value in them is listed here.
 */
export const EXAMPLE_TOKEN_SECRETS: readonly string[] = ['change-me-openssl-rand-base64-48'];

const secret =
  (name: string, examples: readonly string[] = []): Field<string | undefined> =>
  (value, problems) => {
    if (value === undefined || value === '') return undefined;
    if (examples.includes(value.trim())) {
      problems.push(
        `${name} is the example value from this project's files, which anyone can read: ` +
          'set a secret of your own (at least 32 characters, e.g. `openssl rand -base64 48`)',
      );
      return REFUSED;
    }
    if (value.length < 32) {
      problems.push(`${name} must be at least 32 characters long`);
      return REFUSED;
    }
    return value;
  };

/**
 * Which proxies to believe in X-Forwarded-For: a hop count (`1` = the one proxy in front) or a
 * comma list of proxy addresses/CIDRs. Never "every hop": with that, a client's own leftmost entry
 * becomes its address (docs/decisions/0011-client-addresses-behind-proxies.md).
 */
const trustProxy: Field<TrustProxy> = (value, problems) => {
  const v = value?.trim().toLowerCase() ?? '';
  if (['', 'off', 'false', 'no', '0'].includes(v)) return false;
  if (['on', 'true', 'yes'].includes(v)) {
    problems.push(
      `TRUST_PROXY=${value} would trust every X-Forwarded-For entry, so clients could choose ` +
        'their own address. Write the number of proxies in front of the server (TRUST_PROXY=1 ' +
        'for one reverse proxy) or their addresses (TRUST_PROXY=10.0.0.5,10.0.1.0/24)',
    );
    return REFUSED;
  }
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops <= 10) return hops;
  } else {
    const list = v.split(',').map((entry) => entry.trim());
    if (list.every(isProxyAddress)) return list;
  }
  problems.push(
    `TRUST_PROXY must be off, a number of proxies from 1 to 10, or a comma list of proxy addresses/CIDRs, got "${value}"`,
  );
  return REFUSED;
};

function isProxyAddress(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const metricsToken: Field<string | undefined> = (value, problems) => {
  if (value === undefined || value === '') return undefined;
  if (value.length < 16 || /\s/.test(value)) {
    problems.push('METRICS_TOKEN must be at least 16 characters, without spaces');
    return REFUSED;
  }
  return value;
};

/** Every variable, in the order its problems are reported. */
const ENV = {
  PORT: int('PORT', 8090, 0, 65535),
  HOST: text,
  APP_URL: url('APP_URL', ['http:', 'https:']),
  APP_NAME: text,
  DATA_DIR: text,
  DATABASE_URL: url('DATABASE_URL', ['postgres:', 'postgresql:']),
  DATABASE_TIMEOUT_MS: int('DATABASE_TIMEOUT_MS', 5000, 100, 600_000),
  REDIS_URL: url('REDIS_URL', ['redis:', 'rediss:']),
  SMTP_URL: url('SMTP_URL', ['smtp:', 'smtps:']),
  MAIL_FROM: text,
  INVITES_PER_USER: int('INVITES_PER_USER', 5, 0, 1000),
  RATE_LIMITS: flag('RATE_LIMITS', true),
  TRUST_PROXY: trustProxy,
  LOG_LEVEL: oneOf(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
  ),
  LOG_FORMAT: oneOf(['pretty', 'json'], 'LOG_FORMAT must be pretty or json'),
  TOKEN_SECRET: secret('TOKEN_SECRET', EXAMPLE_TOKEN_SECRETS),
  MAIL_POLL_MS: int('MAIL_POLL_MS', 5000, 10, 3_600_000),
  MAIL_RETRY_BASE_MS: int('MAIL_RETRY_BASE_MS', 5000, 10, 3_600_000),
  WEB_DIST: text,
  SESSION_MAX_DAYS: int('SESSION_MAX_DAYS', 30, 1, 3650),
  REAUTH_MINUTES: int('REAUTH_MINUTES', 10, 1, 1440),
  AUDIT_RETENTION_DAYS: int('AUDIT_RETENTION_DAYS', 90, 1, 3650),
  LOGS_RETENTION_DAYS: int('LOGS_RETENTION_DAYS', 5, 0, 3650),
  METRICS_TOKEN: metricsToken,
  OAUTH2_PROVIDERS: text,
  OAUTH2_GITHUB_CLIENT_ID: text,
  OAUTH2_GITHUB_CLIENT_SECRET: text,
  OAUTH2_GOOGLE_CLIENT_ID: text,
  OAUTH2_GOOGLE_CLIENT_SECRET: text,
  OAUTH2_OIDC_CLIENT_ID: text,
  OAUTH2_OIDC_CLIENT_SECRET: text,
  OAUTH2_OIDC_ISSUER: url('OAUTH2_OIDC_ISSUER', ['http:', 'https:']),
  OAUTH2_OIDC_NAME: text,
  OAUTH2_TIMEOUT_MS: int('OAUTH2_TIMEOUT_MS', 10_000, 100, 120_000),
  GATE_COOKIE_DOMAIN: text,
  GATE_HOSTS: text,
};

/** The variables, read. */
type Env = { [K in keyof typeof ENV]: ReturnType<(typeof ENV)[K]> };

/** Reads every variable; throws with every problem at once. */
function readEnv(env: Record<string, string | undefined>): Env {
  const problems: string[] = [];
  const read: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(ENV) as [string, Field<unknown>][]) {
    read[name] = field(env[name], problems);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return read as Env;
}

/** A host the gate protects (GATE_HOSTS), and who may pass. */
export interface GateHost {
  host: string;
  group: 'members' | 'operators';
}

/** The gate for apps that speak no OpenID (docs/decisions/0061): its cookie's domain and hosts. */
export interface GateConfig {
  /** The parent domain the gate cookie is for (GATE_COOKIE_DOMAIN); unset: no gate. */
  cookieDomain: string | undefined;
  hosts: GateHost[];
}

const HOSTNAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * GATE_COOKIE_DOMAIN (`example.org`) and GATE_HOSTS (`wiki.example.org, grafana.example.org=operators`):
 * each host must sit under the cookie's domain, or the browser never sends it the cookie.
 */
function gateConfig(e: Env): { gate: GateConfig; problems: string[] } {
  const problems: string[] = [];
  const domain = e.GATE_COOKIE_DOMAIN?.trim().toLowerCase().replace(/^\./, '') || undefined;
  if (domain && !HOSTNAME.test(domain)) {
    problems.push(`GATE_COOKIE_DOMAIN must be a domain name such as example.org, got "${domain}"`);
  }
  const hosts: GateHost[] = [];
  for (const entry of (e.GATE_HOSTS ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const [name = '', group = 'members'] = entry
      .toLowerCase()
      .split('=')
      .map((x) => x.trim());
    if (!HOSTNAME.test(name)) {
      problems.push(`GATE_HOSTS names "${entry}", which is not a host name`);
    } else if (group !== 'members' && group !== 'operators') {
      problems.push(`GATE_HOSTS: "${entry}" must end in =members or =operators (or neither)`);
    } else if (!domain) {
      problems.push('GATE_HOSTS needs GATE_COOKIE_DOMAIN (the parent domain of those hosts)');
    } else if (name !== domain && !name.endsWith(`.${domain}`)) {
      problems.push(`GATE_HOSTS: ${name} is not under GATE_COOKIE_DOMAIN (${domain})`);
    } else hosts.push({ host: name, group });
  }
  return { gate: { cookieDomain: domain, hosts }, problems };
}

/** The sign-in providers Gatehouse knows (OAUTH2_PROVIDERS names some of them). */
export const PROVIDER_NAMES = ['github', 'google', 'oidc'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** One configured sign-in provider (OAuth2 / OpenID Connect). */
export interface ProviderConfig {
  name: ProviderName;
  /** As buttons show it: "GitHub", "Google", or OAUTH2_OIDC_NAME. */
  displayName: string;
  clientId: string;
  clientSecret: string;
  /** oidc: the issuer whose discovery document describes it. */
  issuer?: string;
}

const DISPLAY_NAMES: Record<ProviderName, string> = {
  github: 'GitHub',
  google: 'Google',
  oidc: 'OpenID',
};

/**
 * OAUTH2_PROVIDERS and each named provider's variables. Plain http is accepted for an OIDC issuer
 * on this machine only (a local test provider); anything else must be https.
 */
function providerConfigs(e: Env): {
  providers: ProviderConfig[];
  problems: string[];
} {
  const problems: string[] = [];
  const providers: ProviderConfig[] = [];
  const names = (e.OAUTH2_PROVIDERS ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '');
  for (const name of names) {
    if (!(PROVIDER_NAMES as readonly string[]).includes(name)) {
      problems.push(
        `OAUTH2_PROVIDERS names "${name}", which is not one of ${PROVIDER_NAMES.join(', ')}`,
      );
      continue;
    }
    if (providers.some((p) => p.name === name)) {
      problems.push(`OAUTH2_PROVIDERS names "${name}" twice`);
      continue;
    }
    const upper = name.toUpperCase();
    const clientId = (
      e[`OAUTH2_${upper}_CLIENT_ID` as keyof typeof e] as string | undefined
    )?.trim();
    const clientSecret = (
      e[`OAUTH2_${upper}_CLIENT_SECRET` as keyof typeof e] as string | undefined
    )?.trim();
    if (!clientId) problems.push(`OAUTH2_${upper}_CLIENT_ID must be set for the ${name} provider`);
    if (!clientSecret) {
      problems.push(`OAUTH2_${upper}_CLIENT_SECRET must be set for the ${name} provider`);
    }
    const provider: ProviderConfig = {
      name: name as ProviderName,
      displayName: DISPLAY_NAMES[name as ProviderName],
      clientId: clientId ?? '',
      clientSecret: clientSecret ?? '',
    };
    if (name === 'oidc') {
      provider.displayName = e.OAUTH2_OIDC_NAME?.trim() || DISPLAY_NAMES.oidc;
      if (!e.OAUTH2_OIDC_ISSUER) {
        problems.push('OAUTH2_OIDC_ISSUER must be set for the oidc provider (its discovery URL)');
      } else {
        const issuer = new URL(e.OAUTH2_OIDC_ISSUER);
        if (issuer.protocol === 'http:' && !isLoopback(issuer.hostname)) {
          problems.push('OAUTH2_OIDC_ISSUER must be https:// (http:// only for this machine)');
        }
        provider.issuer = e.OAUTH2_OIDC_ISSUER;
      }
    }
    providers.push(provider);
  }
  return { providers, problems };
}

function isLoopback(hostname: string): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(hostname);
}

/** false: use the socket's address; a hop count; or the proxies' addresses/CIDRs. */
export type TrustProxy = false | number | string[];

export interface Config {
  port: number;
  host: string;
  /** Public address without a trailing slash, used in mail and invite links. */
  appUrl: string;
  appName: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** PostgreSQL: limit for connecting, for a statement, for an answer. */
  databaseTimeoutMs: number;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  invitesPerUser: number;
  rateLimits: boolean;
  trustProxy: TrustProxy;
  logLevel: string;
  /** pretty: a readable line per event; json: a JSON line (the default when stdout is no TTY). */
  logFormat: 'pretty' | 'json';
  /** The signing secret instead of DATA_DIR/secret.key; required with DATABASE_URL. */
  tokenSecret: string | undefined;
  mailPollMs: number;
  mailRetryBaseMs: number;
  /** The built web app to host. */
  webDist: string;
  /** A session's absolute lifetime from sign-in. */
  sessionMaxDays: number;
  /** How long a session stays fresh after a sign-in or a "Confirm it's you" (core/reauth.ts). */
  reauthMinutes: number;
  /** How long security events are kept. */
  auditRetentionDays: number;
  /**
   * How long the request log keeps its entries (days; 0: none kept). When LOGS_RETENTION_DAYS is
   * set it wins over the settings' logs.maxDays; unset, this is that field's default (PocketBase's 5).
   */
  logsRetentionDays: number;
  /** Enables GET /api/metrics for this bearer token. */
  metricsToken: string | undefined;
  /** Sign-in providers (OAUTH2_PROVIDERS), in the order given; empty: none. */
  providers: ProviderConfig[];
  /** How long a call to a provider may take before the sign-in fails. */
  providerTimeoutMs: number;
  /** The gate in front of other apps (GATE_COOKIE_DOMAIN, GATE_HOSTS). */
  gate: GateConfig;
  /**
   * Which of the variables that operators may also set in the app's settings (SETTINGS_VARIABLES)
   * the environment gave: those win over the settings, which then show them as locked.
   */
  setByEnvironment: readonly SettingsVariable[];
}

/** The variables whose values the app's settings may hold too (core/settings.ts). */
export const SETTINGS_VARIABLES = [
  'APP_NAME',
  'APP_URL',
  'MAIL_FROM',
  'SMTP_URL',
  'INVITES_PER_USER',
  'SESSION_MAX_DAYS',
  'AUDIT_RETENTION_DAYS',
  'LOGS_RETENTION_DAYS',
] as const;
export type SettingsVariable = (typeof SETTINGS_VARIABLES)[number];

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const projectRoot = path.resolve(import.meta.dirname, '..', '..');

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const e = readEnv(env);
  const { providers, problems } = providerConfigs(e);
  const { gate, problems: gateProblems } = gateConfig(e);
  problems.push(...gateProblems);
  if (problems.length > 0) throw new ConfigError(problems);
  const appName = e.APP_NAME?.trim() || 'Gatehouse';
  const appUrl = (e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  let mailFrom = e.MAIL_FROM?.trim();
  if (!mailFrom) mailFrom = `${appName} <no-reply@${new URL(appUrl).hostname}>`;
  return {
    port: e.PORT,
    host: e.HOST?.trim() || '127.0.0.1',
    appUrl,
    appName,
    dataDir: path.resolve(e.DATA_DIR?.trim() || './data'),
    databaseUrl: e.DATABASE_URL,
    databaseTimeoutMs: e.DATABASE_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom,
    invitesPerUser: e.INVITES_PER_USER,
    rateLimits: e.RATE_LIMITS,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL ?? 'info',
    logFormat: e.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    tokenSecret: e.TOKEN_SECRET,
    mailPollMs: e.MAIL_POLL_MS,
    mailRetryBaseMs: e.MAIL_RETRY_BASE_MS,
    webDist: path.resolve(e.WEB_DIST?.trim() || path.join(projectRoot, 'web', 'dist')),
    sessionMaxDays: e.SESSION_MAX_DAYS,
    reauthMinutes: e.REAUTH_MINUTES,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    logsRetentionDays: e.LOGS_RETENTION_DAYS,
    metricsToken: e.METRICS_TOKEN,
    providers,
    providerTimeoutMs: e.OAUTH2_TIMEOUT_MS,
    gate,
    setByEnvironment: SETTINGS_VARIABLES.filter((name) => (env[name] ?? '').trim() !== ''),
  };
}

/**
 * The environment with the project's `.env` file under it: a variable set in both keeps the
 * environment's value (even an empty one). `ENV_FILE` names another file; `ENV_FILE=` (empty)
 * reads none. A missing default `.env` is no error; a missing `ENV_FILE` is.
 */
export function withEnvFile(
  env: Record<string, string | undefined> = process.env,
): Record<string, string | undefined> {
  const named = env.ENV_FILE?.trim();
  if (named === '') return env;
  const file = path.resolve(named ?? path.join(projectRoot, '.env'));
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (named === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return env;
    throw new ConfigError([`ENV_FILE: cannot read ${file} (${(error as Error).message})`]);
  }
  return { ...parseEnvFile(text, file), ...env };
}

/** `KEY=VALUE` lines; `#` starts a comment; values may be in single or double quotes. */
export function parseEnvFile(text: string, file = '.env'): Record<string, string> {
  const vars: Record<string, string> = {};
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) {
      problems.push(`${file} line ${index + 1} is not KEY=VALUE`);
      return;
    }
    const [, key, rest] = match as unknown as [string, string, string];
    const quoted = /^(["'])(.*)\1(?:\s+#.*)?$/.exec(rest);
    if (quoted) {
      const [, quote, inner] = quoted as unknown as [string, string, string];
      vars[key] = quote === '"' ? inner.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1') : inner;
    } else {
      vars[key] = rest.replace(/(^|\s+)#.*$/, '').trim();
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return vars;
}
