/* global console, process, setTimeout, URL, Buffer, performance */
// The soak: the mixed traffic of a real community at about 70 % of the capacity measured on the
// same mix, for SOAK_MINUTES (default 10). Prints errors (target 0), p99 per minute, and the
// server's RSS at rest after a warm-up minute and after the soak (target: growth <= 10 %). One
// server in a child process (SQLite, or the empty PostgreSQL database of BENCH_DATABASE_URL),
// limits off.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { api, collectGarbage, startGatehouse, table } from './lib.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const MEMBERS = 30;
/** Load before the start's reading, and quiet before each reading of the RSS. */
const WARMUP_S = Number(process.env.SOAK_WARMUP_S ?? 60);
const SETTLE_MS = 10_000;

/** What a community does, by weight: mostly reading, some signing in, a few joining. */
const MIX = [
  ['page load (GET / and its script)', 30],
  ['auth-refresh', 25],
  ['invite list', 30],
  ['sign-in', 12],
  ['sign-up', 3],
];

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The printed verification link whose token names `email` (printed recipients are redacted). */
async function verificationLink(app, email) {
  for (let n = 0; n < 100; n++) {
    const link = app
      .output()
      .split('\n')
      .filter((line) => line.includes('"mail printed'))
      .map((line) => JSON.parse(line).link ?? '')
      .find((l) => {
        const token = l && new URL(l).searchParams.get('token');
        if (!token) return false;
        const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
        return payload.email === email && payload.type === 'verification';
      });
    if (link) return link;
    await sleep(100);
  }
  throw new Error(`No verification mail to ${email} printed`);
}

export async function runSoak({ minutes = Number(process.env.SOAK_MINUTES ?? 10) } = {}) {
  // Members start with plenty of codes so that sign-ups never run dry.
  // The inspector (127.0.0.1, a free port) lets the soak ask for a full collection before it reads
  // the RSS at rest.
  const app = await startGatehouse(
    { INVITES_PER_USER: '200' },
    { flags: ['--inspect=127.0.0.1:0'] },
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const base = new URL(app.url);
  const send = (method, path, body, token) =>
    new Promise((resolve) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const started = performance.now();
      const req = http.request(
        {
          host: base.hostname,
          port: base.port,
          method,
          path,
          agent,
          headers: {
            ...(payload ? { 'content-type': 'application/json' } : {}),
            ...(token ? { authorization: token } : {}),
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode,
              ms: performance.now() - started,
              text: Buffer.concat(chunks).toString(),
            }),
          );
        },
      );
      req.on('error', (error) =>
        resolve({ status: 0, ms: performance.now() - started, text: error.message }),
      );
      req.end(payload);
    });

  try {
    console.log(`Gatehouse at ${app.url}: ${MEMBERS} verified members through the API...`);
    const inviteCode = new URL(app.bootstrapLink).searchParams.get('code');
    const members = [];
    const join = async (code) => {
      const email = `soak-${randomBytes(5).toString('hex')}@example.com`;
      const password = `Soak-${randomBytes(9).toString('base64url')}`;
      await api(app.url, 'POST', '/api/collections/users/records', {
        email,
        password,
        passwordConfirm: password,
        inviteCode: code,
      });
      await api(app.url, 'POST', '/api/collections/users/request-verification', { email });
      const link = await verificationLink(app, email);
      await api(app.url, 'POST', '/api/collections/users/confirm-verification', {
        token: new URL(link).searchParams.get('token'),
      });
      const auth = await api(app.url, 'POST', '/api/collections/users/auth-with-password', {
        identity: email,
        password,
      });
      return { email, password, token: auth.token };
    };
    const initial = await join(inviteCode);
    members.push(initial);
    const codes = (
      await api(app.url, 'GET', '/api/invite-codes', undefined, initial.token)
    ).codes.map((c) => c.code);
    while (members.length < MEMBERS) members.push(await join(codes.pop()));
    const page = await send('GET', '/');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.text)?.[1] ?? '/';

    const pick = () => members[Math.floor(Math.random() * members.length)];
    const total = MIX.reduce((n, [, w]) => n + w, 0);
    const kinds = {
      'page load (GET / and its script)': async () => {
        const a = await send('GET', '/');
        if (a.status !== 200) return a;
        const b = await send('GET', script);
        return { ...b, ms: a.ms + b.ms };
      },
      'auth-refresh': () => send('POST', '/api/collections/users/auth-refresh', {}, pick().token),
      'invite list': () => send('GET', '/api/invite-codes', undefined, pick().token),
      'sign-in': () => {
        const m = pick();
        return send('POST', '/api/collections/users/auth-with-password', {
          identity: m.email,
          password: m.password,
        });
      },
      'sign-up': async () => {
        // The initial member makes more codes when theirs run low (limits are off).
        if (codes.length < 10) {
          const made = await send('POST', '/api/invite-codes/generate', {}, initial.token);
          if (made.status !== 200) return made;
          codes.push(...JSON.parse(made.text).codes.map((c) => c.code));
        }
        const code = codes.pop();
        const password = `Soak-${randomBytes(9).toString('base64url')}`;
        return send('POST', '/api/collections/users/records', {
          email: `soak-new-${randomBytes(6).toString('hex')}@example.com`,
          password,
          passwordConfirm: password,
          inviteCode: code ?? 'none',
        });
      },
    };
    const choose = () => {
      let r = Math.random() * total;
      for (const [name, w] of MIX) {
        r -= w;
        if (r < 0) return name;
      }
      return MIX[0][0];
    };

    // Capacity: 32 clients back to back on the mix for 15 s.
    console.log('Measuring capacity on the mix (32 clients back to back, 15 s)...');
    let done = 0;
    const capacityEnd = Date.now() + 15_000;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (Date.now() < capacityEnd) {
          await kinds[choose()]();
          done += 1;
        }
      }),
    );
    const capacity = done / 15;
    const rate = Math.max(1, Math.round(capacity * 0.7));
    console.log(
      `Capacity ${capacity.toFixed(0)} mixes/s; soaking at ${rate}/s (70 %) for ${minutes} min...`,
    );

    /** `rate` mixes a second until `endAt`; each answer goes to `onAnswer(kind, res)`. */
    const paced = async (endAt, onAnswer) => {
      let next = performance.now();
      const pending = new Set();
      while (Date.now() < endAt) {
        const kind = choose();
        const p = kinds[kind]().then((res) => {
          onAnswer(kind, res);
          pending.delete(p);
        });
        pending.add(p);
        next += 1000 / rate;
        const wait = next - performance.now();
        if (wait > 1) await sleep(wait);
        if (pending.size > 2000) await sleep(10);
      }
      await Promise.all(pending);
    };
    // The server's RSS at rest: traffic stopped, SETTLE_MS of quiet, then a full garbage
    // collection, so that both readings are taken in the same state. Mid-traffic the RSS moves by
    // up to 100 MiB from one second to the next (when the collector last ran, how many password
    // hashes are under way); without the collection, two readings at rest still differed by ±11 %.
    const restingRss = async () => {
      await sleep(SETTLE_MS);
      await collectGarbage(app.output());
      await sleep(1000);
      return rssMiB(app.pid);
    };

    // A warm-up minute at the soak's rate first: the start is measured with the caches, the
    // database's pages and the collector's heap at their working size, not after 15 s of load.
    console.log(`Warming up at ${rate}/s for ${WARMUP_S} s...`);
    let warmupErrors = 0;
    await paced(Date.now() + WARMUP_S * 1000, (_kind, res) => {
      if (res.status < 200 || res.status >= 300) warmupErrors += 1;
    });
    const startRss = await restingRss();
    const perMinute = [];
    const errors = [];
    const started = Date.now();
    await paced(started + minutes * 60_000, (kind, res) => {
      const minute = Math.min(minutes - 1, Math.floor((Date.now() - started) / 60_000));
      // The server's RSS as each minute's first answer arrives, mid-traffic: growth that levels
      // off is caches filling to their bounds; growth that goes on is a leak.
      perMinute[minute] ??= { latencies: [], errors: 0, byKind: {}, rss: rssMiB(app.pid) };
      const bucket = perMinute[minute];
      bucket.latencies.push(res.ms);
      bucket.byKind[kind] = (bucket.byKind[kind] ?? 0) + 1;
      if (res.status < 200 || res.status >= 300) {
        bucket.errors += 1;
        if (errors.length < 10) errors.push(`${kind}: ${res.status} ${res.text.slice(0, 120)}`);
      }
    });
    const endRss = await restingRss();

    const rows = perMinute.map((m, i) => {
      const sorted = [...m.latencies].sort((a, b) => a - b);
      return [
        `${i + 1}`,
        `${sorted.length}`,
        `${(sorted.length / 60).toFixed(0)}/s`,
        `${m.errors}`,
        `${percentile(sorted, 50).toFixed(1)} ms`,
        `${percentile(sorted, 99).toFixed(1)} ms`,
        `${m.rss.toFixed(1)} MiB`,
      ];
    });
    const totalErrors = perMinute.reduce((n, m) => n + m.errors, 0) + warmupErrors;
    const growth = (endRss - startRss) / startRss;
    console.log('');
    console.log(
      table(rows, ['minute', 'requests', 'rate', 'errors', 'p50', 'p99', 'RSS under load']),
    );
    console.log('');
    console.log(
      `errors: ${totalErrors} (target 0: ${totalErrors === 0 ? 'met' : 'MISSED'})` +
        (errors.length ? `\n  first: ${errors.join('\n  ')}` : ''),
    );
    console.log(
      `RSS at rest: ${startRss.toFixed(1)} MiB after the warm-up, ${endRss.toFixed(1)} MiB after the soak ` +
        `(${(growth * 100).toFixed(1)} %; target <= 10 %: ${growth <= 0.1 ? 'met' : 'MISSED'})`,
    );
    return {
      settings: {
        minutes,
        warmupSeconds: WARMUP_S,
        settleMs: SETTLE_MS,
        rate,
        capacity: Math.round(capacity),
        mix: Object.fromEntries(MIX),
      },
      warmupErrors,
      minutes: perMinute.map((m) => {
        const sorted = [...m.latencies].sort((a, b) => a - b);
        return {
          requests: sorted.length,
          errors: m.errors,
          p50Ms: Number(percentile(sorted, 50).toFixed(1)),
          p99Ms: Number(percentile(sorted, 99).toFixed(1)),
          rssMiB: Number(m.rss.toFixed(1)),
        };
      }),
      errors: totalErrors,
      firstErrors: errors,
      rssMiB: { start: Number(startRss.toFixed(1)), end: Number(endRss.toFixed(1)) },
      targets: {
        errors: { target: '0', met: totalErrors === 0 },
        rssGrowth: { target: '<= 10 %', met: growth <= 0.1 },
      },
    };
  } finally {
    agent.destroy();
    await app.close();
  }
}
