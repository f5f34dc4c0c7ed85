import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { signUpVerified } from './api';
import { ENV_KEY, type AppServer, type E2EEnv, type ServerName } from './env';
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
                : { hostName: HOST_NAMES[name] ?? '127.0.0.1' },
            );
      started.push(server);
      servers[name] = {
        url: server.url,
        bootstrapLink: server.bootstrapLink,
        dataDir: path.join(work, name),
        ...(own ? { smtpPort: adminSmtp.port } : {}),
      };
    }
    const env: E2EEnv = { servers, mailDir };
    process.env[ENV_KEY] = JSON.stringify(env);
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
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function startAppServer(
  name: string,
  dataDir: string,
  smtpUrl: string,
  options: { port?: number; env?: Record<string, string>; hostName?: string } = {},
): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const url = `http://${options.hostName ?? '127.0.0.1'}:${port}`;
  const child = spawn(process.execPath, ['--enable-source-maps', 'server/dist/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
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
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const logFile = path.join(path.dirname(dataDir), `${name}-server.log`);
  child.on('exit', () => void fs.writeFile(logFile, output).catch(() => {}));

  const fail = (why: string) =>
    new Error(`The ${name} server ${why}. Its output so far:\n${output.slice(-4000)}`);
  const bootstrapLink = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(fail('printed no sign-up link within 90 s')), 90_000);
    const look = () => {
      // The start-up line (JSON logs: stdout is no terminal) carries the initial account's link.
      const link = /(https?:\/\/[^\s"]+\/signup\?code=[^\s"]+)/.exec(output)?.[1];
      if (link) {
        clearTimeout(timer);
        child.stdout.off('data', look);
        resolve(link);
      }
    };
    child.stdout.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(fail(`exited with code ${code} before it was ready`));
    });
  });
  const health = await fetch(`${url}/api/health`);
  if (!health.ok) throw fail(`answered /api/health with ${health.status}`);

  return { url, bootstrapLink, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
