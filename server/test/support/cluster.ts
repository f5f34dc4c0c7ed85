import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../../../test-harness/server-process.js';
import { freePort, systemProgram } from './ports.js';
import { testNginxMain } from './nginx.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

/** The nginx site the repository ships (deploy/nginx/gatehouse.conf). */
export const SITE_FILE = path.join(ROOT, 'deploy', 'nginx', 'gatehouse.conf');

/**
 * One Gatehouse instance in its own process (server/src/main.ts through tsx) on a fixed port, so
 * that it can be killed (SIGKILL: no shutdown at all) and started again where the balancer expects it.
 */
export class Instance {
  private process: ServerProcess | null = null;
  /** What the runs before the current one printed. */
  private earlier = '';
  private readonly dataDir = mkdtempSync(path.join(os.tmpdir(), 'gh-cluster-'));

  private constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  static async create(name: string, env: Record<string, string>): Promise<Instance> {
    return new Instance(name, await freePort(), env);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Everything every run of it printed (pino's JSON lines). */
  output(): string {
    return this.earlier + (this.process?.output() ?? '');
  }

  get running(): boolean {
    return this.process !== null;
  }

  /** Starts it and waits until /api/health answers. */
  async start(): Promise<void> {
    if (this.process) throw new Error(`${this.name} is already running`);
    this.process = await startServerProcess({
      entry: 'server/src/main.ts',
      port: this.port,
      env: { DATA_DIR: this.dataDir, LOG_FORMAT: 'json', ENV_FILE: '', ...this.env },
      timeoutMs: 60_000,
      name: this.name,
    });
  }

  /** Sends `signal` and waits until the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const running = this.process;
    if (!running) return;
    this.process = null;
    await running.stop(signal);
    this.earlier += running.output();
  }

  async close(): Promise<void> {
    await this.kill('SIGTERM');
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export interface SitePorts {
  /** The HTTPS listener (`listen 443 ssl`), with the test's self-signed certificate. */
  tls: number;
  /** The plain listener (`listen 80`) that redirects to HTTPS. */
  redirect: number;
}

/**
 * deploy/nginx/gatehouse.conf as the test runs it: the instances instead of the example upstream
 * lines, local ports instead of 80 and 443, the test's certificate, and one more plain listener
 * (`port`) on the HTTPS site so the test's clients need no TLS. Everything else is the file as it
 * ships; a line the test expects and does not find fails the test.
 */
export function siteForTest(
  dir: string,
  port: number,
  options: { upstreams: string[]; ports: SitePorts; cert: string; key: string },
): string {
  let site = readFileSync(SITE_FILE, 'utf8');
  const swap = (from: RegExp, to: string) => {
    if (!from.test(site)) throw new Error(`${SITE_FILE} no longer has ${from}`);
    site = site.replace(from, to);
  };
  const servers = options.upstreams
    .map((u) => `    server ${new URL(u).host} max_fails=1 fail_timeout=10s;`)
    .join('\n');
  swap(/^( {4}server 127\.0\.0\.1:\d+ .*\n)+/m, `${servers}\n`);
  swap(/^ {4}listen \[::\]:80;\n/m, '');
  swap(/^ {4}listen \[::\]:443 ssl http2;\n/m, '');
  swap(/^ {4}listen 80;$/m, `    listen 127.0.0.1:${options.ports.redirect};`);
  swap(
    /^ {4}listen 443 ssl http2;$/m,
    `    listen 127.0.0.1:${options.ports.tls} ssl http2;\n    listen 127.0.0.1:${port};`,
  );
  swap(/^ {4}ssl_certificate \S+;$/m, `    ssl_certificate ${options.cert};`);
  swap(/^ {4}ssl_certificate_key \S+;$/m, `    ssl_certificate_key ${options.key};`);
  return testNginxMain(dir, 4096, site);
}

/** A self-signed certificate for 127.0.0.1 in `dir` (openssl from Debian). */
export function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const openssl = systemProgram('openssl', 'apt-get install -y openssl');
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync(
    openssl,
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** A temporary folder removed by the returned function. */
export function tempDir(prefix: string): [string, () => void] {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return [dir, () => rmSync(dir, { recursive: true, force: true })];
}
