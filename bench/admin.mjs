/* global console, process, fetch, URL */
// `npm run bench -- admin`: the operator console's reads at 1,000 and 1,000,000 members.
// Members are written straight into the database (one shared password hash, prepared inserts in
// one transaction), with an invite tree whose one branch holds 10,000 members; then one real
// built server per size answers the console's requests, each request timed at every size in turn.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { createVerifiedUser, startGatehouse, table } from './lib.mjs';

const SIZES = (process.env.BENCH_ADMIN_SIZES ?? '1000,1000000').split(',').map(Number);
const BRANCH = 10_000;
const RUNS = 1000;
const WARMUP = 20;
const BATCH = 5_000;

const pad = (n) => n.toString(36).padStart(14, '0');
const BASE = Date.parse('2025-01-01T00:00:00Z');
const WORDS = ['alex', 'sam', 'kim', 'lee', 'jo', 'max', 'ana', 'eli', 'noa', 'ray'];
const DOMAINS = ['example.org', 'mail.test', 'post.example', 'inbox.test'];

/** The n-th seeded member (n from 1): its id, email, inviter (the branch sits under member 1). */
function member(n, initialId) {
  const id = `b${pad(n)}`;
  let inviter;
  if (n === 1) inviter = initialId;
  else if (n <= BRANCH) inviter = `b${pad(Math.floor(n / 3) || 1)}`;
  else
    inviter =
      n % 7 === 0 ? initialId : `b${pad(BRANCH + 1 + ((n * 7919) % Math.max(1, n - BRANCH - 1)))}`;
  if (n === BRANCH + 1) inviter = initialId;
  const created = new Date(BASE + n * 1000).toISOString().replace('T', ' ');
  return {
    id,
    email: `${WORDS[n % WORDS.length]}.${n}@${DOMAINS[n % DOMAINS.length]}`,
    verified: n % 10 === 0 ? 0 : 1,
    disabled: n % 1000 === 0 ? 1 : 0,
    invited_by: inviter,
    created,
  };
}

const COLUMNS = [
  'id',
  'email',
  'password_hash',
  'token_key',
  'verified',
  'email_visibility',
  'is_initial_user',
  'is_operator',
  'disabled',
  'invite_code',
  'invited_by',
  'created',
  'updated',
];

function row(m, hash) {
  return [
    m.id,
    m.email,
    hash,
    'bench-token-key',
    m.verified,
    0,
    0,
    0,
    m.disabled,
    'BENCH',
    m.invited_by,
    m.created,
    m.created,
  ];
}

async function seedSqlite(file, count, initialId, hash) {
  const db = new SQLite(file);
  db.pragma('busy_timeout = 10000');
  // A million random emails go into B-tree indexes: keep their pages in memory while seeding.
  db.pragma('cache_size = -524288');
  db.pragma('synchronous = OFF');
  // As the server does: the invite tree's triggers use temporary b-trees (docs/decisions/0031).
  db.pragma('temp_store = MEMORY');
  const insert = db.prepare(
    `INSERT INTO users (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
  );
  db.transaction(() => {
    for (let n = 1; n <= count; n++) insert.run(row(member(n, initialId), hash));
  })();
  db.exec('ANALYZE');
  db.close();
}

async function seedPostgres(url, count, initialId, hash) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (let start = 1; start <= count; start += BATCH) {
      const rows = [];
      for (let n = start; n < start + BATCH && n <= count; n++)
        rows.push(row(member(n, initialId), hash));
      const cols = COLUMNS.map((_, i) => rows.map((r) => r[i]));
      const types = [
        'text',
        'text',
        'text',
        'text',
        'int',
        'int',
        'int',
        'int',
        'int',
        'text',
        'text',
        'text',
        'text',
      ];
      await client.query(
        `INSERT INTO users (${COLUMNS.join(', ')})
         SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`,
        cols,
      );
    }
    await client.query('COMMIT');
    // As autovacuum would have by now: the one-transaction seeding leaves dead row versions of
    // invite_tree behind, and no statistics (without them a tree query scans every member).
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL: a database of its own for each size (`<the database of the URL>_<size>`, made
 * anew), so that every size's server runs at once; dropped again at the end.
 */
async function sizeDatabase(url, count) {
  const name = `${new URL(url).pathname.slice(1)}_admin_${count}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const sized = new URL(url);
  sized.pathname = `/${name}`;
  return {
    url: sized.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** One timed request; throws unless it answers 2xx. */
async function timeOne(base, route, token) {
  const start = process.hrtime.bigint();
  const res = await fetch(`${base}${route}`, { headers: { authorization: token } });
  await res.text();
  if (!res.ok) throw new Error(`${route} answered ${res.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function percentiles(durations) {
  const sorted = [...durations].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

/** PocketBase's record list with a filter (and sort), as the SDK's getList sends it. */
const records = (filter, rest = '') =>
  `/api/collections/users/records?filter=${encodeURIComponent(filter)}${rest}`;

/** The console's requests at a given size, by name (the ones the targets are about marked). */
function routesFor(count) {
  const fragment = encodeURIComponent(`.${Math.floor(count * 0.777)}@`);
  const rare = `.${Math.floor(count * 0.777)}@`;
  // Half-way through the seeded members' sign-up dates (one a second from 2025-01-01).
  const middle = new Date(BASE + (count / 2) * 1000).toISOString().replace('T', ' ');
  const branchRoot = `b${pad(1)}`;
  return [
    ['members, first page (with total)', '/api/admin/members', true],
    ['members, first page (skipTotal)', '/api/admin/members?skipTotal=1'],
    [
      'members, verified, by email (skipTotal)',
      '/api/admin/members?status=verified&sort=email&skipTotal=1',
    ],
    ['search by email fragment (skipTotal)', `/api/admin/members?q=${fragment}&skipTotal=1`],
    ['search by email fragment (with total)', `/api/admin/members?q=${fragment}`, true],
    ["a member's page", `/api/admin/members/${branchRoot}`, true],
    [
      `invite tree of the ${BRANCH.toLocaleString('en')} branch (depth 2)`,
      `/api/admin/invite-tree?root=${branchRoot}&depth=2`,
      true,
    ],
    ['members, verified (with total)', '/api/admin/members?status=verified'],
    ['search by a common fragment (skipTotal)', '/api/admin/members?q=alex&skipTotal=1'],
    ['search by a common fragment (with total)', '/api/admin/members?q=alex'],
    ['invite tree from the initial user (depth 1)', '/api/admin/invite-tree?depth=1'],
    // PocketBase's record list with its filter grammar (docs/decisions/0052).
    ['records, first page (with total)', '/api/collections/users/records', true],
    [
      'records, verified && created > middle, -created (skipTotal)',
      records(`verified = true && created > "${middle}"`, '&sort=-created&skipTotal=1'),
      true,
    ],
    [
      'records, verified && created > middle, -created (with total)',
      records(`verified = true && created > "${middle}"`, '&sort=-created'),
      true,
    ],
    [
      'records, email ~ fragment, -created (with total)',
      records(`email ~ "${rare}"`, '&sort=-created'),
      true,
    ],
    [
      'records, email ~ common fragment, -created (skipTotal)',
      records('email ~ "alex"', '&sort=-created&skipTotal=1'),
      true,
    ],
    [
      'records, email ~ common fragment && !verified (with total)',
      records('email ~ "alex" && verified = false', '&sort=-created'),
    ],
    [
      'records, sorted by email (skipTotal)',
      '/api/collections/users/records?sort=email&skipTotal=1',
      true,
    ],
  ];
}

/** Seeds `count` members and starts the server on them; `close` stops it and removes the data. */
async function prepare(count, databaseUrl) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gatehouse-bench-admin-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: databaseUrl ?? '' };
  let app = await startGatehouse(env);
  let operator;
  try {
    operator = await createVerifiedUser(app);
  } finally {
    await app.close();
  }
  const q = async (sql) => {
    if (databaseUrl) {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        return (await c.query(sql)).rows[0];
      } finally {
        await c.end();
      }
    }
    const db = new SQLite(path.join(dataDir, 'gatehouse.db'));
    try {
      return db.prepare(sql).get();
    } finally {
      db.close();
    }
  };
  const { id: initialId, password_hash: hash } = await q(
    'SELECT id, password_hash FROM users WHERE is_initial_user = 1',
  );
  const started = Date.now();
  if (databaseUrl) await seedPostgres(databaseUrl, count, initialId, hash);
  else await seedSqlite(path.join(dataDir, 'gatehouse.db'), count, initialId, hash);
  const seedSeconds = (Date.now() - started) / 1000;

  app = await startGatehouse(env, { restart: true });
  const login = await fetch(`${app.url}/api/collections/users/auth-with-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: operator.email, password: operator.password }),
  }).then((r) => r.json());
  return {
    count,
    seedSeconds,
    url: app.url,
    token: login.token,
    routes: routesFor(count),
    async close() {
      await app.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function runAdmin() {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const kind = databaseUrl ? `PostgreSQL (${new URL(databaseUrl).pathname.slice(1)})` : 'SQLite';
  const sizes = [];
  const cleanups = [];
  try {
    for (const count of SIZES) {
      console.log(`${kind}: seeding ${count.toLocaleString('en')} members…`);
      let url;
      if (databaseUrl) {
        const database = await sizeDatabase(databaseUrl, count);
        cleanups.push(database.drop);
        url = database.url;
      }
      const size = await prepare(count, url);
      cleanups.push(size.close);
      console.log(`  seeded in ${size.seedSeconds.toFixed(1)} s`);
      sizes.push(size);
    }
    // Every size's server runs at once, and each request goes to every size in turn: a slow
    // spell of this shared machine then weighs on all sizes alike, and the ratios compare sizes,
    // not moments.
    console.log(`Timing ${RUNS} requests of each kind at every size, side by side…`);
    const results = sizes.map(() => []);
    for (const [r, [name]] of sizes[0].routes.entries()) {
      const durations = sizes.map(() => []);
      for (let i = 0; i < WARMUP + RUNS; i++) {
        for (const [s, size] of sizes.entries()) {
          const ms = await timeOne(size.url, size.routes[r][1], size.token);
          if (i >= WARMUP) durations[s].push(ms);
        }
      }
      for (const [s, d] of durations.entries()) results[s].push({ name, ...percentiles(d) });
    }
    const first = results[0];
    const last = results[results.length - 1];
    const rows = first.map((r, i) => [
      `${sizes[0].routes[i][2] ? '* ' : '  '}${r.name}`,
      ...results.flatMap((run) => [run[i].p50.toFixed(1), run[i].p99.toFixed(1)]),
      ...(results.length > 1
        ? [(last[i].p50 / r.p50).toFixed(2), (last[i].p99 / r.p99).toFixed(2)]
        : []),
    ]);
    const ratioHeads =
      results.length > 1
        ? [`p50 ×`, `p99 ×`].map((h) => `${h} (${sizes.at(-1).count}/${sizes[0].count})`)
        : [];
    console.log(
      `\n${kind}, ${RUNS} requests each, sizes side by side (ms)\n` +
        table(rows, [
          'request (* with targets)',
          ...sizes.flatMap((s) => [`p50 @${s.count}`, `p99 @${s.count}`]),
          ...ratioHeads,
        ]) +
        `\nTargets for *: p99 <= 50 ms at 1,000,000 on SQLite, and within 1.5x of the 1,000 figure` +
        ` (the record lists: p99 <= 50 ms at 1,000,000).`,
    );
    return {
      database: kind,
      runs: sizes.map((s, i) => ({
        count: s.count,
        seedSeconds: s.seedSeconds,
        results: results[i],
      })),
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
