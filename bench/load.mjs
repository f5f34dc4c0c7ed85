/* global console, process */
// The load benchmark: invite-code reads against a bare node:http baseline (and bare Fastify giving
// the same answer), logins/s, and the health check's p99 latency while a login storm runs. Servers
// in child processes, autocannon here, 127.0.0.1 only.
import autocannon from 'autocannon';
import {
  cpuMs,
  createVerifiedUser,
  median,
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

/** summary() of a run, plus the server's CPU time per answer (µs) when /proc can tell it. */
async function measured(pid, options) {
  const before = cpuMs(pid);
  const result = summary(await cannon(options));
  const after = cpuMs(pid);
  if (before !== undefined && after !== undefined && result.total > 0) {
    result.cpuUsPerAnswer = Number((((after - before) * 1000) / result.total).toFixed(1));
  }
  return result;
}

const ROUNDS = 5;
/**
 * SQLite: with sessions checked on every request (the spec asked 0.5 before sessions existed).
 * PostgreSQL (BENCH_DATABASE_URL), a database over a socket whose cached reads last a second at
 * most (other instances write too): 0.35, the several-machines target.
 */
const RATIO_TARGET = process.env.BENCH_DATABASE_URL ? 0.35 : 0.6;

export async function runLoad({ duration = 6, connections = 50 } = {}) {
  const app = await startGatehouse();
  let hello;
  let floor;
  try {
    console.log(`Gatehouse at ${app.url}: creating a verified user through the API...`);
    const user = await createVerifiedUser(app);
    const login = {
      url: `${app.url}/api/collections/users/auth-with-password`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity: user.email, password: user.password }),
    };
    const invites = {
      url: `${app.url}/api/invite-codes`,
      headers: { authorization: user.token },
    };

    hello = await startHello();
    floor = await startFastifyFloor();
    console.log('Warming up the three servers (2 s each)...');
    await cannon({ ...invites, duration: 2, connections });
    await cannon({ url: floor.url, duration: 2, connections });
    await cannon({ url: hello.url, duration: 2, connections });

    // The ratio is measured in alternating rounds, so that a slower or faster spell of this
    // shared machine weighs on both sides alike; the median round is reported. Bare Fastify
    // giving the same answer runs in each round too: the framework's own share of the distance.
    const rounds = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      console.log(
        `(a) round ${round}/${ROUNDS}: GET /api/invite-codes, bare Fastify's same answer, ` +
          `node:http hello-world, ${connections} connections, ${duration} s each...`,
      );
      const invite = await measured(app.pid, { ...invites, duration, connections });
      const bareFastify = await measured(floor.pid, {
        url: floor.url,
        duration,
        connections,
      });
      const bare = await measured(hello.pid, { url: hello.url, duration, connections });
      rounds.push({
        invite,
        floor: bareFastify,
        hello: bare,
        ratio: invite.requestsPerSec / bare.requestsPerSec,
        floorRatio: bareFastify.requestsPerSec / bare.requestsPerSec,
      });
    }
    await hello.close();
    hello = undefined;
    await floor.close();
    floor = undefined;
    const byRatio = [...rounds].sort((a, b) => a.ratio - b.ratio);
    const medianRound = byRatio[Math.floor(byRatio.length / 2)];
    const inviteResult = medianRound.invite;
    const helloResult = medianRound.hello;
    const floorResult = medianRound.floor;
    const floorRatio = median(rounds.map((r) => r.floorRatio));

    console.log(
      `    for reference, GET /api/health alone, ${connections} connections, ${duration} s...`,
    );
    const healthAlone = summary(
      await cannon({ url: `${app.url}/api/health`, duration, connections }),
    );

    console.log(`(b) logins (auth-with-password), ${connections} connections, ${duration} s...`);
    const loginResult = summary(await cannon({ ...login, duration, connections }));

    console.log(`(c) GET /api/health (5 connections) during a login storm, ${duration} s...`);
    const [stormRaw, healthRaw] = await Promise.all([
      cannon({ ...login, duration, connections }),
      cannon({ url: `${app.url}/api/health`, duration, connections: 5 }),
    ]);
    const storm = summary(stormRaw);
    const health = summary(healthRaw);

    const ratio = medianRound.ratio;
    const ratios = rounds.map((r) => Number(r.ratio.toFixed(3)));
    const results = {
      settings: { duration, connections, rounds: ROUNDS },
      rounds: rounds.map((r) => ({
        inviteCodes: r.invite.requestsPerSec,
        bareFastify: r.floor.requestsPerSec,
        helloWorld: r.hello.requestsPerSec,
        cpuUsPerAnswer: {
          inviteCodes: r.invite.cpuUsPerAnswer,
          bareFastify: r.floor.cpuUsPerAnswer,
          helloWorld: r.hello.cpuUsPerAnswer,
        },
        ratio: Number(r.ratio.toFixed(3)),
        bareFastifyRatio: Number(r.floorRatio.toFixed(3)),
      })),
      inviteCodes: inviteResult,
      healthAlone,
      helloWorld: helloResult,
      ratio: Number(ratio.toFixed(3)),
      bareFastify: floorResult,
      bareFastifyRatio: Number(floorRatio.toFixed(3)),
      logins: loginResult,
      healthDuringStorm: health,
      stormDuringHealth: storm,
      targets: {
        ratio: { target: `>= ${RATIO_TARGET}`, met: ratio >= RATIO_TARGET },
        healthP99Ms: { target: '<= 20', met: health.latencyMs.p99 <= 20 },
      },
    };
    const bad = [
      ...rounds.flatMap((r) => [r.invite, r.floor, r.hello]),
      healthAlone,
      loginResult,
      storm,
      health,
    ].some((r) => r.non2xx > 0 || r.errors > 0);

    console.log('');
    console.log(
      table(
        [
          [
            'GET /api/invite-codes (valid token), median round',
            `${inviteResult.requestsPerSec} req/s`,
            `p99 ${inviteResult.latencyMs.p99} ms`,
            '',
          ],
          [
            '  for reference: GET /api/health alone',
            `${healthAlone.requestsPerSec} req/s`,
            `p99 ${healthAlone.latencyMs.p99} ms`,
            '',
          ],
          [
            'node:http hello-world, same round',
            `${helloResult.requestsPerSec} req/s`,
            `p99 ${helloResult.latencyMs.p99} ms`,
            '',
          ],
          [
            'ratio invite-codes / hello-world',
            `${ratio.toFixed(3)} (median)`,
            `rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}`,
            `target >= ${RATIO_TARGET}: ${ratio >= RATIO_TARGET ? 'met' : 'MISSED'}`,
          ],
          ...(inviteResult.cpuUsPerAnswer !== undefined
            ? [
                [
                  '  server CPU per answer, median round',
                  `${inviteResult.cpuUsPerAnswer} µs`,
                  `hello-world ${helloResult.cpuUsPerAnswer} µs`,
                  '',
                ],
              ]
            : []),
          [
            '  for reference: bare Fastify, the same answer',
            `${floorResult.requestsPerSec} req/s`,
            `ratio ${floorRatio.toFixed(2)} (median)`,
            floorResult.cpuUsPerAnswer !== undefined
              ? `CPU per answer ${floorResult.cpuUsPerAnswer} µs`
              : '',
          ],
          [
            'logins (auth-with-password)',
            `${loginResult.requestsPerSec} logins/s`,
            `p99 ${loginResult.latencyMs.p99} ms`,
            '',
          ],
          [
            'GET /api/health during login storm',
            `${health.requestsPerSec} req/s`,
            `p99 ${health.latencyMs.p99} ms`,
            `target p99 <= 20 ms: ${health.latencyMs.p99 <= 20 ? 'met' : 'MISSED'}`,
          ],
          [
            '  (the storm meanwhile)',
            `${storm.requestsPerSec} logins/s`,
            `p99 ${storm.latencyMs.p99} ms`,
            '',
          ],
        ],
        ['measure', 'throughput', 'latency', 'target'],
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
    await app.close();
  }
}
