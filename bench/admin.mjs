/* global console, process, fetch, URL */
// `npm run bench -- admin`: the operator console's reads at 1,000 and 1,000,000 members.
// Members are written straight into the database (one shared password hash, prepared inserts in
// one transaction), with an invite tree whose one branch holds 10,000 members; then the real
// built server answers the console's requests, timed one after another.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { createVerifiedUser, startGatehouse, table } from './lib.mjs';

const SIZES = (process.env.BENCH_ADMIN_SIZES ?? '1000,1000000').split(',').map(Number);
const BRANCH = 10_000;
const RUNS = 200;
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

async function emptyPostgres(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  } finally {
    await client.end();
  }
}

async function time(base, route, token) {
  const durations = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const start = process.hrtime.bigint();
    const res = await fetch(`${base}${route}`, { headers: { authorization: token } });
    await res.text();
    if (!res.ok) throw new Error(`${route} answered ${res.status}`);
    if (i >= WARMUP) durations.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  durations.sort((a, b) => a - b);
  const at = (q) => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function measure(count, databaseUrl) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gatehouse-bench-admin-'));
  if (databaseUrl) await emptyPostgres(databaseUrl);
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
  try {
    const login = await fetch(`${app.url}/api/collections/users/auth-with-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity: operator.email, password: operator.password }),
    }).then((r) => r.json());
    const token = login.token;
    const fragment = encodeURIComponent(`.${Math.floor(count * 0.777)}@`);
    const branchRoot = `b${pad(1)}`;
    const routes = [
      ['members, first page (with total)', '/api/admin/members'],
      ['members, first page (skipTotal)', '/api/admin/members?skipTotal=1'],
      [
        'members, verified, by email (skipTotal)',
        '/api/admin/members?status=verified&sort=email&skipTotal=1',
      ],
      ['search by email fragment (skipTotal)', `/api/admin/members?q=${fragment}&skipTotal=1`],
      ['search by email fragment (with total)', `/api/admin/members?q=${fragment}`],
      ["a member's page", `/api/admin/members/${branchRoot}`],
      [
        `invite tree of the ${BRANCH.toLocaleString('en')} branch (depth 2)`,
        `/api/admin/invite-tree?root=${branchRoot}&depth=2`,
      ],
      ['members, verified (with total)', '/api/admin/members?status=verified'],
      ['search by a common fragment (skipTotal)', '/api/admin/members?q=alex&skipTotal=1'],
      ['search by a common fragment (with total)', '/api/admin/members?q=alex'],
      ['invite tree from the initial user (depth 1)', '/api/admin/invite-tree?depth=1'],
    ];
    const results = [];
    for (const [name, route] of routes)
      results.push({ name, ...(await time(app.url, route, token)) });
    return { count, seedSeconds, results };
  } finally {
    await app.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

export async function runAdmin() {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const kind = databaseUrl ? `PostgreSQL (${new URL(databaseUrl).pathname.slice(1)})` : 'SQLite';
  const runs = [];
  for (const count of SIZES) {
    console.log(`${kind}: seeding ${count.toLocaleString('en')} members…`);
    const run = await measure(count, databaseUrl);
    console.log(`  seeded in ${run.seedSeconds.toFixed(1)} s`);
    runs.push(run);
  }
  const rows = runs[0].results.map((r, i) => [
    r.name,
    ...runs.flatMap((run) => [run.results[i].p50.toFixed(1), run.results[i].p99.toFixed(1)]),
  ]);
  console.log(
    `\n${kind}, ${RUNS} sequential requests each (ms)\n` +
      table(rows, ['request', ...runs.flatMap((r) => [`p50 @${r.count}`, `p99 @${r.count}`])]),
  );
  return { database: kind, runs };
}
