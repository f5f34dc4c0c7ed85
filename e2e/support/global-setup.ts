import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../test-harness/ports.js';
import { startServerProcess } from '../../test-harness/server-process.js';
import { signUpVerified } from './api';
import { ENV_KEY, type AppServer, type E2EEnv, type ServerName } from './env';
import { signUpWithPrintedMail } from './printed-mail';
import { startMailReceiver } from './smtp';
import { PROVIDER_NAME, TestOidcProvider } from './oidc';

/**
 * Starts a real SMTP receiver and the real built server (one per spec file that needs its own
 * world, each with a fresh SQLite DATA_DIR), hands their addresses to the workers (through an
 * environment variable, see env.ts), and returns the teardown.
 */

const root = path.resolve(import.meta.dirname, '..', '..');
const SERVER_NAMES: ServerName[] = [
  'journey',
  'screens',
  'settings',
  'admin',
  'providers',
  'passkeys',
  'polish',
  'reauth',
  'logs',
  'backups',
  'apps',
];
/**
 * The passkeys and reauth servers are addressed as `localhost`: WebAuthn takes its RP id from
 * APP_URL's host, and an IP address is no valid RP id; localhost is, and is a secure context over
 * plain HTTP.
 */
const HOST_NAMES: Partial<Record<ServerName, string>> = {
  passkeys: 'localhost',
  reauth: 'localhost',
};

export default async function globalSetup(): Promise<() => Promise<void>> {
  for (const built of ['server/dist/main.js', 'web/dist/index.html']) {
    if (!existsSync(path.join(root, built))) {
      throw new Error(`${built} is missing: run \`npm run build\` before the browser journeys.`);
    }
  }
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'gatehouse-e2e-'));
  const mailDir = path.join(work, 'mail');
  await fs.mkdir(mailDir);

  const smtp = await startMailReceiver(mailDir);
  // The admin server's receiver: up while the setup makes its initial user (see below).
  const adminSmtp = await startMailReceiver(mailDir);
  const started: RunningServer[] = [];
  /** What a server without a mail server printed so far (its mail is there). */
  const consoles: Partial<Record<ServerName, () => string>> = {};
  // The providers server signs in with a real OpenID provider on this machine; the others have
  // none configured (their screens show no provider buttons).
  const providersPort = await freePort();
  const idp = await TestOidcProvider.start([
    `http://127.0.0.1:${providersPort}/api/oauth2-redirect`,
  ]);
  started.push({ url: idp.issuer, bootstrapLink: '', stop: () => idp.stop() });
  const teardown = async () => {
    await Promise.all(started.map((s) => s.stop()));
    await Promise.all([smtp.close(), adminSmtp.close()]);
    if (!process.env.E2E_KEEP) await fs.rm(work, { recursive: true, force: true });
  };

  try {
    const servers = {} as Record<ServerName, AppServer>;
    // The admin server mails through a receiver of its own, which its spec stops and starts
    // (a mail server that is down). Failed mail waits 10 minutes before its next try there, so
    // only Retry Now sends it sooner.
    for (const name of SERVER_NAMES) {
      const own = name === 'admin';
      const server =
        name === 'providers'
          ? await startAppServer(name, path.join(work, name), smtp.url, {
              port: providersPort,
              env: idp.env(PROVIDER_NAME),
            })
          : await startAppServer(
              name,
              path.join(work, name),
              own ? adminSmtp.url : smtp.url,
              own
                ? { env: { MAIL_RETRY_BASE_MS: '600000' } }
                : name === 'logs'
                  ? // No mail server: mail is printed to the server's console.
                    { env: { SMTP_URL: '' } }
                  : { hostName: HOST_NAMES[name] ?? '127.0.0.1' },
            );
      started.push(server);
      if (name === 'logs') consoles.logs = server.output;
      servers[name] = {
        url: server.url,
        bootstrapLink: server.bootstrapLink,
        dataDir: path.join(work, name),
        ...(own ? { smtpPort: adminSmtp.port } : {}),
      };
    }
    const env: E2EEnv = { servers, mailDir };
    process.env[ENV_KEY] = JSON.stringify(env);
    // The logs server has no mail server: its initial user confirms the link the server printed.
    const logs = servers.logs;
    const logsCode = new URL(logs.bootstrapLink).searchParams.get('code') ?? '';
    logs.initial = await signUpWithPrintedMail(logs.url, logsCode, consoles.logs!);
    // The journey walks the bootstrap link itself; the other tests start with an initial user
    // (whose invite codes bring in the members they need).
    for (const name of [
      'screens',
      'settings',
      'admin',
      'providers',
      'passkeys',
      'polish',
      'reauth',
      'backups',
      'apps',
    ] as const) {
      const code = new URL(servers[name].bootstrapLink).searchParams.get('code') ?? '';
      servers[name].initial = await signUpVerified(servers[name].url, code, 'initial');
    }
    // From here on the admin spec runs that receiver itself, on the same port.
    await adminSmtp.close();
    process.env[ENV_KEY] = JSON.stringify(env);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

interface RunningServer {
  url: string;
  bootstrapLink: string;
  stop(): Promise<unknown>;
  /** Its output so far. */
  output?: () => string;
}

async function startAppServer(
  name: string,
  dataDir: string,
  smtpUrl: string,
  options: { port?: number; env?: Record<string, string>; hostName?: string } = {},
): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const url = `http://${options.hostName ?? '127.0.0.1'}:${port}`;
  const server = await startServerProcess({
    nodeArgs: ['--enable-source-maps'],
    port,
    inheritEnv: true,
    env: {
      APP_URL: url,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      SMTP_URL: smtpUrl,
      RATE_LIMITS: 'off',
      MAIL_POLL_MS: '100',
      MAIL_RETRY_BASE_MS: '200',
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    // The start-up line (JSON logs: stdout is no terminal) carries the initial account's link.
    readyOutput: /(https?:\/\/[^\s"]+\/signup\?code=[^\s"]+)/,
    timeoutMs: 90_000,
    killAfterMs: 10_000,
    name: `The ${name} server`,
    outputTail: 4000,
    logFile: path.join(path.dirname(dataDir), `${name}-server.log`),
  });
  return {
    url,
    bootstrapLink: server.match?.[1] ?? '',
    stop: () => server.stop(),
    output: () => server.output(),
  };
}
