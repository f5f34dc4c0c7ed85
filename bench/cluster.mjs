/* global console, URL */
// The cluster benchmark (`npm run bench -- cluster`): GET /api/invite-codes through nginx in front
// of two instances on one PostgreSQL database (BENCH_DATABASE_URL, or a database made for the run),
// against node:http hello-world through the same nginx in front of two hello-world servers, in
// alternating rounds (median reported). For reference, one instance on its own, without nginx.
// Everything shares this machine's cores with the load generator: the figures say what the
// balancer and a second instance cost here, not what more machines would add.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { accepts, freePort, waitUntil } from '../test-harness/ports.js';
import { stopProcess } from '../test-harness/server-process.js';
import { benchDatabase, createVerifiedUser, startGatehouse, startHello, table } from './lib.mjs';

const ROUNDS = 3;
const DURATION = 6;
const CONNECTIONS = 50;

function cannon(options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: DURATION, ...options }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

const figures = (r) => ({
  requestsPerSec: Math.round(r.requests.average),
  p99Ms: r.latency.p99,
  non2xx: r.non2xx,
  errors: r.errors,
});

/** nginx from the system, one worker, balancing `upstreams` (name → base URLs), one port each. */
async function startNginx(upstreams) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gatehouse-bench-nginx-'));
  await fs.mkdir(path.join(dir, 'tmp'));
  const ports = {};
  const blocks = [];
  for (const [name, urls] of Object.entries(upstreams)) {
    ports[name] = await freePort();
    blocks.push(`
  upstream ${name} {
${urls.map((u) => `    server ${new URL(u).host};`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${ports[name]};
    location / {
      proxy_pass http://${name};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }`);
  }
  const conf = path.join(dir, 'nginx.conf');
  await fs.writeFile(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
${blocks.join('\n')}
}
`,
  );
  const child = spawn('nginx', ['-p', dir, '-c', conf, '-e', `${dir}/error.log`], {
    stdio: 'inherit',
  });
  child.once('error', (err) => {
    throw new Error(`nginx could not start (apt-get install nginx-light): ${err.message}`);
  });
  // Until every port accepts connections.
  for (const port of Object.values(ports)) {
    await waitUntil(() => accepts(port), 10_000, 'nginx to listen', { intervalMs: 100 });
  }
  const urls = Object.fromEntries(
    Object.entries(ports).map(([name, port]) => [name, `http://127.0.0.1:${port}`]),
  );
  return {
    urls,
    close: async () => {
      await stopProcess(child, { killAfterMs: 10_000 });
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

export async function runCluster() {
  const database = await benchDatabase();
  // Instances on one database share the signing secret (PostgreSQL needs it from the environment).
  const env = {
    DATABASE_URL: database.url,
    TOKEN_SECRET: 'bench-only-token-secret-0123456789abcdef',
  };
  const started = [];
  try {
    const a = await startGatehouse(env);
    started.push(a);
    const b = await startGatehouse(env, { restart: true });
    started.push(b);
    const helloA = await startHello();
    started.push(helloA);
    const helloB = await startHello();
    started.push(helloB);
    const nginx = await startNginx({ gatehouse: [a.url, b.url], hello: [helloA.url, helloB.url] });
    started.push(nginx);
    console.log(
      `Two instances on PostgreSQL behind nginx (${nginx.urls.gatehouse}): creating a verified user...`,
    );
    const user = await createVerifiedUser(a);
    const headers = { authorization: user.token };
    const through = { url: `${nginx.urls.gatehouse}/api/invite-codes`, headers };
    const bare = { url: nginx.urls.hello };
    console.log('Warming up (2 s each)...');
    await cannon({ ...through, duration: 2 });
    await cannon({ ...bare, duration: 2 });
    const rounds = [];
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(
        `round ${round}/${ROUNDS}: GET /api/invite-codes through nginx to two instances, then ` +
          `hello-world through nginx to two servers, ${CONNECTIONS} connections, ${DURATION} s each...`,
      );
      const invite = figures(await cannon(through));
      const hello = figures(await cannon(bare));
      rounds.push({ invite, hello, ratio: invite.requestsPerSec / hello.requestsPerSec });
    }
    console.log('for reference: GET /api/invite-codes on one instance, without nginx...');
    const alone = figures(await cannon({ url: `${a.url}/api/invite-codes`, headers }));
    const median = [...rounds].sort((x, y) => x.ratio - y.ratio)[Math.floor(ROUNDS / 2)];
    console.log(
      '\n' +
        table(
          [
            [
              'GET /api/invite-codes, nginx → 2 instances (median round)',
              `${median.invite.requestsPerSec} req/s`,
              `p99 ${median.invite.p99Ms} ms`,
            ],
            [
              'node:http hello-world, nginx → 2 servers (same round)',
              `${median.hello.requestsPerSec} req/s`,
              `p99 ${median.hello.p99Ms} ms`,
            ],
            [
              'ratio through the balancer',
              `${median.ratio.toFixed(2)} (median)`,
              `rounds ${rounds.map((r) => r.ratio.toFixed(2)).join(', ')}`,
            ],
            [
              'GET /api/invite-codes, one instance, no nginx',
              `${alone.requestsPerSec} req/s`,
              `p99 ${alone.p99Ms} ms`,
            ],
          ],
          ['measure', 'throughput', 'latency'],
        ),
    );
    const failed = [...rounds.flatMap((r) => [r.invite, r.hello]), alone].some(
      (r) => r.non2xx > 0 || r.errors > 0,
    );
    if (failed) console.log('\nWARNING: some requests failed (non-2xx or errors).');
    return {
      settings: { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS },
      rounds,
      ratio: Number(median.ratio.toFixed(3)),
      throughBalancer: median.invite,
      helloThroughBalancer: median.hello,
      oneInstanceDirect: alone,
      failed,
    };
  } finally {
    for (const part of started.reverse()) await part.close().catch(() => {});
    await database.drop();
  }
}
