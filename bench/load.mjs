/* global console, process, setTimeout, URL, Buffer, fetch */
// The load benchmark, at the server's default configuration (the request log on, info level):
// invite-code reads, the health check, a member's own record and auth-refresh against a bare
// node:http baseline (and bare Fastify giving the invite-codes answer); the request log's own cost
// (the same server with the log switched off in its settings and on again, round by round);
// logins/s against argon2 alone; the health check's p99 during a login storm; the server's memory
// idle and with 20,000 live sessions.
// Servers in child processes, autocannon here, 127.0.0.1 only.
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import {
  api,
  cpuSplitMs,
  createVerifiedUser,
  median,
  root,
  startFastifyFloor,
  startGatehouse,
  startHello,
  table,
} from './lib.mjs';

function cannon(options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: 50, duration: 10, ...options }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

function summary(result) {
  return {
    requestsPerSec: Math.round(result.requests.average),
    latencyMs: {
      p50: result.latency.p50,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/**
 * summary() of a run, plus the server's CPU time per answer (µs) when /proc can tell it, and the
 * part of it in the server's own code (user): the kernel's part includes waking the load
 * generator on this machine, more often for slower answers, which a client across a network
 * does not cost the server.
 */
async function measured(pid, options) {
  const before = cpuSplitMs(pid);
  const result = summary(await cannon(options));
  const after = cpuSplitMs(pid);
  if (before !== undefined && after !== undefined && result.total > 0) {
    const perAnswer = (ms) => Number(((ms * 1000) / result.total).toFixed(1));
    result.cpuUsPerAnswer = perAnswer(after.user + after.system - before.user - before.system);
    result.userUsPerAnswer = perAnswer(after.user - before.user);
  }
  return result;
}

export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ROUNDS = 5;
const POSTGRES = Boolean(process.env.BENCH_DATABASE_URL);
/**
 * GET /api/invite-codes / hello-world: 0.7 on SQLite; on PostgreSQL (BENCH_DATABASE_URL, one
 * instance), a database over a socket whose cached reads last a second at most, 0.6.
 */
const RATIO_TARGET = POSTGRES ? 0.6 : 0.7;
/** GET /api/health / hello-world: what every request pays beyond Node's HTTP. */
const HEALTH_TARGET = 0.65;
/** auth-refresh's CPU per answer / GET the own record's. */
const REFRESH_TARGET = 1.5;
/** The request log's cost: CPU per answer with it / without it. */
const REQUEST_LOG_TARGET = 1.05;
/** Logins per second / argon2 verifications per second alone. */
const LOGINS_TARGET = 0.9;
/** RSS (MiB): idle after start and one sign-in; with 20,000 live sessions each heard from. */
const IDLE_RSS_TARGET = 64;
const SESSIONS = 20_000;
/**
 * How long a server is left alone before its memory is read: it gives back what a busy spell
 * left once it has been quiet for a minute (server/src/tools/quiet-memory.ts).
 */
const QUIET_MS = 65_000;
const SESSIONS_RSS_TARGET = 150;
/** The signing secret of the measured servers (the 20,000 sessions' tokens are made here). */
const TOKEN_SECRET = 'bench-only-token-secret-0123456789abcdef';

const met = (ok) => (ok ? 'met' : 'NOT MET');

/** bench/argon2-ceiling.mjs in its own process: argon2 verifications/s, `connections` at once. */
function argon2Ceiling(connections, duration) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(root, 'bench/argon2-ceiling.mjs'), String(connections), String(duration)],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      const m = /ceiling ([\d.]+)/.exec(out);
      if (code === 0 && m) resolve(Number(m[1]));
      else reject(new Error(`argon2-ceiling.mjs failed (${code}): ${out}`));
    });
  });
}

/** An auth token for `sid`, signed as core/tokens.ts signs them (TOKEN_SECRET, the user's key). */
function authToken(user, sid) {
  const secret = createHmac('sha256', TOKEN_SECRET).update('gatehouse:auth').digest('base64url');
  const claims = {
    collectionId: '_pb_users_auth_',
    exp: Math.floor(Date.now() / 1000) + 3600,
    id: user.id,
    type: 'auth',
    refreshable: true,
    sid,
  };
  const body = `${Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', user.tokenKey + secret)
    .update(body)
    .digest('base64url')}`;
}

/**
 * SESSIONS live sessions of the member (SQLite: copies of their session row, written beside the
 * server as another process would), then one GET of the own record with each: every session has
 * been read, checked and cached as far as the caches go. Returns the server's RSS 2 s after it and
 * after a quiet minute.
 */
async function manySessions(app, user) {
  const file = path.join(app.dataDir, 'gatehouse.db');
  const db = new SQLite(file);
  let tokens;
  try {
    const sid = JSON.parse(Buffer.from(user.token.split('.')[1], 'base64url').toString()).sid;
    const tokenKey = db.prepare('SELECT token_key FROM users WHERE id = ?').pluck().get(user.id);
    const copy = db.prepare(
      'INSERT INTO sessions (id, user_id, created, last_seen, expires, ip, user_agent, confirmed_at) ' +
        'SELECT ?, user_id, created, last_seen, expires, ip, user_agent, confirmed_at FROM sessions WHERE id = ?',
    );
    const ids = Array.from({ length: SESSIONS - 1 }, () =>
      randomBytes(12)
        .toString('base64url')
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '0')
        .slice(0, 15),
    );
    db.transaction(() => ids.forEach((id) => copy.run(id, sid)))();
    tokens = [user.token, ...ids.map((id) => authToken({ id: user.id, tokenKey }, id))];
  } finally {
    db.close();
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  const { hostname, port } = new URL(app.url);
  let failed = 0;
  const get = (token) =>
    new Promise((resolve) => {
      const req = http.get(
        {
          host: hostname,
          port,
          agent,
          path: `/api/collections/users/records/${user.id}`,
          headers: { authorization: token },
        },
        (res) => {
          if (res.statusCode !== 200) failed += 1;
          res.resume().on('end', resolve);
        },
      );
      req.on('error', () => {
        failed += 1;
        resolve();
      });
    });
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < tokens.length) await get(tokens[next++]);
    }),
  );
  agent.destroy();
  if (failed > 0) throw new Error(`${failed} of ${tokens.length} session reads failed`);
  await sleep(2000);
  const soon = rssMiB(app.pid);
  await sleep(QUIET_MS - 2000);
  return { soon, quiet: rssMiB(app.pid) };
}

export async function runLoad({
  duration = Number(process.env.BENCH_SECONDS ?? 4),
  connections = 50,
} = {}) {
  const env = { TOKEN_SECRET };
  const app = await startGatehouse(env);
  // Idle memory is read from a second server, started and signed in to, then left alone while the
  // first one is measured: after a quiet minute a server gives memory back with a full
  // collection, after which requests cost more for minutes (docs/decisions/0074).
  let resting;
  let hello;
  let floor;
  try {
    resting = await startGatehouse(env);
    await createVerifiedUser(resting);
    const restingSince = Date.now();
    console.log(`Gatehouse at ${app.url}: creating a verified user through the API...`);
    const user = await createVerifiedUser(app);
    const me = await api(
      app.url,
      'POST',
      '/api/collections/users/auth-refresh',
      undefined,
      user.token,
    );
    user.id = me.record.id;
    // The request log's own cost: the same process with the log switched off and on again in its
    // settings (logs.maxDays, as an operator would), round by round. Two processes of one build
    // differ by up to ~15 % for their whole life, more than the log costs.
    const { logs } = await api(app.url, 'GET', '/api/settings', undefined, user.token);
    const requestLog = async (on) => {
      // Each change needs a fresh session (the member is the operator): sign in again.
      const { token } = await api(app.url, 'POST', '/api/collections/users/auth-with-password', {
        identity: user.email,
        password: user.password,
      });
      const days = on ? logs.maxDays : 0;
      await api(app.url, 'PATCH', '/api/settings', { logs: { maxDays: days } }, token);
    };
    // Idle: started, one member signed up and signed in, a few seconds to settle (the resting
    // server's figure, after a quiet minute, is the one with the target).
    await sleep(3000);
    const idleSoonRss = rssMiB(app.pid);
    const login = {
      url: `${app.url}/api/collections/users/auth-with-password`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity: user.email, password: user.password }),
    };
    const auth = { authorization: user.token };
    const requests = {
      invite: { url: `${app.url}/api/invite-codes`, headers: auth },
      health: { url: `${app.url}/api/health` },
      own: { url: `${app.url}/api/collections/users/records/${user.id}`, headers: auth },
      refresh: {
        url: `${app.url}/api/collections/users/auth-refresh`,
        method: 'POST',
        headers: auth,
      },
    };

    hello = await startHello();
    floor = await startFastifyFloor();
    // What Node and Fastify take by themselves, idle after one answer: where the RSS target sits.
    await Promise.all([fetch(hello.url), fetch(floor.url)].map((r) => r.then((a) => a.text())));
    await sleep(3000);
    const referenceRss = { hello: rssMiB(hello.pid), floor: rssMiB(floor.pid) };
    console.log('Warming up (2 s each)...');
    for (const r of Object.values(requests)) await cannon({ ...r, duration: 2, connections });
    await requestLog(false);
    await cannon({ ...requests.invite, duration: 2, connections });
    await requestLog(true);
    await cannon({ url: floor.url, duration: 2, connections });
    await cannon({ url: hello.url, duration: 2, connections });

    // Alternating rounds, so that a slower or faster spell of this shared machine weighs on all
    // sides alike; the median round of each ratio is reported.
    const rounds = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      console.log(
        `(a) round ${round}/${ROUNDS}: invite codes with the request log on and off, health, own ` +
          `record, auth-refresh, bare Fastify, hello-world; ${connections} connections, ${duration} s each...`,
      );
      const r = {};
      const run = (options) => measured(app.pid, { ...options, duration, connections });
      // Invite codes with the log on and off, one after the other (which first alternates), each
      // after a second unmeasured: a switch signs in (an Argon2 hash through the caches) and
      // writes the settings (the read cache starts again).
      for (const on of round % 2 ? [true, false] : [false, true]) {
        if (!on) await requestLog(false);
        await cannon({ ...requests.invite, duration: 1, connections });
        r[on ? 'invite' : 'quiet'] = await run(requests.invite);
        if (!on) await requestLog(true);
      }
      for (const name of ['health', 'own', 'refresh']) r[name] = await run(requests[name]);
      r.floor = await measured(floor.pid, { url: floor.url, duration, connections });
      r.hello = await measured(hello.pid, { url: hello.url, duration, connections });
      r.ratio = r.invite.requestsPerSec / r.hello.requestsPerSec;
      r.healthRatio = r.health.requestsPerSec / r.hello.requestsPerSec;
      r.floorRatio = r.floor.requestsPerSec / r.hello.requestsPerSec;
      r.ofFloor = r.invite.requestsPerSec / r.floor.requestsPerSec;
      r.refreshCpu = r.refresh.cpuUsPerAnswer / r.own.cpuUsPerAnswer;
      r.refreshUserCpu = r.refresh.userUsPerAnswer / r.own.userUsPerAnswer;
      r.requestLogCpu = r.invite.cpuUsPerAnswer / r.quiet.cpuUsPerAnswer;
      rounds.push(r);
    }
    await hello.close();
    hello = undefined;
    await floor.close();
    floor = undefined;
    const middle = (key) => {
      const sorted = [...rounds].sort((a, b) => a[key] - b[key]);
      return sorted[Math.floor(sorted.length / 2)];
    };
    const medianRound = middle('ratio');
    const ratio = medianRound.ratio;
    const healthRatio = middle('healthRatio').healthRatio;
    const floorRatio = median(rounds.map((r) => r.floorRatio));
    const ofFloor = median(rounds.map((r) => r.ofFloor));
    const refreshCpu = middle('refreshCpu').refreshCpu;
    const refreshUserCpu = middle('refreshUserCpu').refreshUserCpu;
    const requestLogCpu = middle('requestLogCpu').requestLogCpu;

    console.log(`(b) argon2 alone: ${connections} verifications at once, ${duration} s...`);
    const ceiling = await argon2Ceiling(connections, duration);
    console.log(`(c) logins (auth-with-password), ${connections} connections, ${duration} s...`);
    const loginResult = summary(await cannon({ ...login, duration, connections }));
    const loginRatio = loginResult.requestsPerSec / ceiling;

    console.log(`(d) GET /api/health (5 connections) during a login storm, ${duration} s...`);
    const [stormRaw, healthRaw] = await Promise.all([
      cannon({ ...login, duration, connections }),
      cannon({ url: `${app.url}/api/health`, duration, connections: 5 }),
    ]);
    const storm = summary(stormRaw);
    const health = summary(healthRaw);

    await sleep(restingSince + QUIET_MS - Date.now());
    const idleRss = rssMiB(resting.pid);

    let sessionsRss;
    let sessionsSoonRss;
    if (!POSTGRES) {
      console.log(`(e) ${SESSIONS} live sessions, each reading the own record once...`);
      ({ soon: sessionsSoonRss, quiet: sessionsRss } = await manySessions(app, user));
    }

    const n = (x, digits = 2) => Number(x.toFixed(digits));
    const results = {
      settings: {
        duration,
        connections,
        rounds: ROUNDS,
        database: POSTGRES ? 'postgres' : 'sqlite',
      },
      rounds: rounds.map((r) => ({
        requestsPerSec: Object.fromEntries(
          ['invite', 'health', 'own', 'refresh', 'quiet', 'floor', 'hello'].map((k) => [
            k,
            r[k].requestsPerSec,
          ]),
        ),
        cpuUsPerAnswer: Object.fromEntries(
          ['invite', 'health', 'own', 'refresh', 'quiet', 'floor', 'hello'].map((k) => [
            k,
            r[k].cpuUsPerAnswer,
          ]),
        ),
        ratio: n(r.ratio, 3),
        healthRatio: n(r.healthRatio, 3),
        refreshCpu: n(r.refreshCpu, 3),
        requestLogCpu: n(r.requestLogCpu, 3),
        bareFastifyRatio: n(r.floorRatio, 3),
        inviteOfBareFastify: n(r.ofFloor, 3),
      })),
      inviteCodes: medianRound.invite,
      helloWorld: medianRound.hello,
      ratio: n(ratio, 3),
      healthRatio: n(healthRatio, 3),
      refreshCpu: n(refreshCpu, 3),
      refreshUserCpu: n(refreshUserCpu, 3),
      requestLogCpu: n(requestLogCpu, 3),
      bareFastify: medianRound.floor,
      bareFastifyRatio: n(floorRatio, 3),
      inviteOfBareFastify: n(ofFloor, 3),
      argon2Ceiling: ceiling,
      logins: loginResult,
      loginRatio: n(loginRatio, 3),
      healthDuringStorm: health,
      stormDuringHealth: storm,
      idleRssMiB: idleRss,
      idleSoonRssMiB: idleSoonRss,
      referenceIdleRssMiB: referenceRss,
      sessionsRssMiB: sessionsRss,
      sessionsSoonRssMiB: sessionsSoonRss,
      targets: {
        ratio: { target: `>= ${RATIO_TARGET}`, met: ratio >= RATIO_TARGET },
        healthRatio: { target: `>= ${HEALTH_TARGET}`, met: healthRatio >= HEALTH_TARGET },
        refreshCpu: { target: `<= ${REFRESH_TARGET}`, met: refreshCpu <= REFRESH_TARGET },
        requestLogCpu: {
          target: `<= ${REQUEST_LOG_TARGET}`,
          met: requestLogCpu <= REQUEST_LOG_TARGET,
        },
        loginRatio: { target: `>= ${LOGINS_TARGET}`, met: loginRatio >= LOGINS_TARGET },
        healthP99Ms: { target: '<= 20', met: health.latencyMs.p99 <= 20 },
        idleRssMiB: { target: `<= ${IDLE_RSS_TARGET}`, met: idleRss <= IDLE_RSS_TARGET },
        ...(sessionsRss === undefined
          ? {}
          : {
              sessionsRssMiB: {
                target: `<= ${SESSIONS_RSS_TARGET}`,
                met: sessionsRss <= SESSIONS_RSS_TARGET,
              },
            }),
      },
    };
    const bad = [
      ...rounds.flatMap((r) => [r.invite, r.health, r.own, r.refresh, r.quiet, r.floor, r.hello]),
      loginResult,
      storm,
      health,
    ].some((r) => r.non2xx > 0 || r.errors > 0);

    const each = (key) => `rounds ${rounds.map((r) => r[key].toFixed(2)).join(', ')}`;
    const m = medianRound;
    console.log('');
    console.log(
      table(
        [
          [
            'GET /api/invite-codes / hello-world',
            `${ratio.toFixed(3)} (median)`,
            each('ratio'),
            `>= ${RATIO_TARGET}: ${met(ratio >= RATIO_TARGET)}`,
          ],
          [
            '  req/s, CPU per answer (median round)',
            `${m.invite.requestsPerSec} / ${m.hello.requestsPerSec} req/s`,
            `${m.invite.cpuUsPerAnswer} / ${m.hello.cpuUsPerAnswer} µs`,
            '',
          ],
          [
            'GET /api/health / hello-world',
            `${healthRatio.toFixed(3)} (median)`,
            each('healthRatio'),
            `>= ${HEALTH_TARGET}: ${met(healthRatio >= HEALTH_TARGET)}`,
          ],
          [
            'auth-refresh / own record, CPU per answer',
            `${refreshCpu.toFixed(3)} (median)`,
            each('refreshCpu'),
            `<= ${REFRESH_TARGET}: ${met(refreshCpu <= REFRESH_TARGET)}`,
          ],
          [
            '  CPU per answer (median round of invite codes)',
            `refresh ${m.refresh.cpuUsPerAnswer} µs`,
            `own record ${m.own.cpuUsPerAnswer} µs, health ${m.health.cpuUsPerAnswer} µs`,
            '',
          ],
          [
            "  the same in the server's own code (user CPU)",
            `${refreshUserCpu.toFixed(3)} (median)`,
            `refresh ${m.refresh.userUsPerAnswer} µs, own record ${m.own.userUsPerAnswer} µs`,
            '',
          ],
          [
            'request log on / off, CPU per answer',
            `${requestLogCpu.toFixed(3)} (median)`,
            each('requestLogCpu'),
            `<= ${REQUEST_LOG_TARGET}: ${met(requestLogCpu <= REQUEST_LOG_TARGET)}`,
          ],
          [
            '  for reference: bare Fastify, the invite-codes answer',
            `${floorRatio.toFixed(3)} of hello-world`,
            `${m.floor.requestsPerSec} req/s`,
            `CPU per answer ${m.floor.cpuUsPerAnswer} µs`,
          ],
          [
            '  invite codes / bare Fastify: what our own work leaves',
            `${ofFloor.toFixed(3)} (median)`,
            'token, session, read, request log',
            '',
          ],
          [
            'logins / argon2 alone',
            `${loginRatio.toFixed(3)}`,
            `${loginResult.requestsPerSec} logins/s, ceiling ${ceiling}/s`,
            `>= ${LOGINS_TARGET}: ${met(loginRatio >= LOGINS_TARGET)}`,
          ],
          [
            'GET /api/health p99 during a login storm',
            `${health.latencyMs.p99} ms`,
            `${health.requestsPerSec} req/s; storm ${storm.requestsPerSec} logins/s`,
            `<= 20 ms: ${met(health.latencyMs.p99 <= 20)}`,
          ],
          [
            'RSS idle (started, one sign-in, a quiet minute)',
            `${idleRss} MiB`,
            `${idleSoonRss} MiB 3 s after the sign-in`,
            `<= ${IDLE_RSS_TARGET} MiB: ${met(idleRss <= IDLE_RSS_TARGET)}`,
          ],
          [
            '  for reference: RSS idle of hello-world, bare Fastify',
            `${referenceRss.hello} / ${referenceRss.floor} MiB`,
            'started, one answer',
            '',
          ],
          ...(sessionsRss === undefined
            ? []
            : [
                [
                  `RSS with ${SESSIONS} live sessions`,
                  `${sessionsRss} MiB`,
                  `each read once; a quiet minute (2 s: ${sessionsSoonRss} MiB)`,
                  `<= ${SESSIONS_RSS_TARGET} MiB: ${met(sessionsRss <= SESSIONS_RSS_TARGET)}`,
                ],
              ]),
        ],
        ['measure', 'figure', 'detail', 'target'],
      ),
    );
    if (bad) {
      console.log(
        '\nWARNING: some requests failed (non-2xx or errors); see bench/results/latest.json.',
      );
    }
    return results;
  } finally {
    await hello?.close();
    await floor?.close();
    await resting?.close();
    await app.close();
  }
}
