import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accepts, freePort, systemProgram, waitUntil } from './ports.js';

/**
 * A real nginx reverse proxy in front of test servers, as operators run one: it appends the
 * address it sees to X-Forwarded-For (`$proxy_add_x_forwarded_for`). Started by the test itself
 * on a free port, with its config, pid, logs and temp files in a temp directory.
 */
export interface NginxProxy {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /** nginx's error log so far. */
  errorLog(): string;
  stop(): Promise<void>;
}

export interface NginxOptions {
  /** Base URLs of the servers to balance over, e.g. [t.url]. */
  upstreams: string[];
  /** Extra directives for the proxying `location /` block. */
  locationExtra?: string;
  /** The whole nginx.conf for this temp directory and port, instead of the simple proxy. */
  config?: (dir: string, port: number) => string;
}

export const NGINX_INSTALL =
  'apt-get install -y nginx-light (or nginx); npm test does this as root on Debian';

/**
 * A whole nginx configuration around `http` (the inside of its http block) for a test run: in the
 * foreground, one process, every file it writes inside `dir`.
 */
export function testNginxMain(dir: string, workerConnections: number, http: string): string {
  return `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${workerConnections}; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
${http}
}
`;
}

export function nginxConfig(dir: string, port: number, options: NginxOptions): string {
  const servers = options.upstreams.map((u) => `    server ${new URL(u).host};`).join('\n');
  return testNginxMain(
    dir,
    512,
    `  upstream app {
${servers}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
${options.locationExtra ?? ''}
    }
  }`,
  );
}

export async function startNginx(options: NginxOptions): Promise<NginxProxy> {
  const nginx = systemProgram('nginx', NGINX_INSTALL);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-nginx-'));
  mkdirSync(path.join(dir, 'tmp'));
  let lastError = '';
  // The free port could be taken between choosing and binding: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const conf = path.join(dir, 'nginx.conf');
    writeFileSync(conf, (options.config ?? ((d, p) => nginxConfig(d, p, options)))(dir, port));
    const child: ChildProcess = spawn(nginx, ['-p', dir, '-c', conf, '-e', `${dir}/error.log`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const errorLog = () => {
      try {
        return readFileSync(path.join(dir, 'error.log'), 'utf8');
      } catch {
        return '';
      }
    };
    try {
      await waitUntil(
        async () => {
          if (child.exitCode !== null || child.signalCode !== null) {
            throw new Error(`nginx exited: ${output}\n${errorLog()}`);
          }
          return accepts(port);
        },
        10_000,
        'nginx to listen',
      );
    } catch (error) {
      child.kill('SIGKILL');
      await exited;
      lastError = (error as Error).message;
      continue;
    }
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      errorLog,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`nginx did not start: ${lastError}`);
}
