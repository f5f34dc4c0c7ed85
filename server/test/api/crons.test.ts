import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { CronTrigger } from '../../src/core/cron.js';
import { startServer } from '../../src/server.js';
import { withDatabase } from '../support/db.js';
import { insertLogEntries } from '../support/logs.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';

/** PocketBase's 403 at its superusers' routes, which operators may use here. */
const NOT_ALLOWED = 'The authorized record is not allowed to perform this action.';
/** Polls `check` until it holds (or `ms` pass, 5 s by default), then returns its last answer. */
async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  ms = 5000,
): Promise<T> {
  let value = await read();
  for (let i = 0; i < ms / 100 && !check(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

/**
 * The scheduled jobs through the official SDK (`pb.crons`), as PocketBase's crons API: operators
 * list them and run one now; a run does its work and is recorded in the request log.
 */
describe.each(DATABASES)('scheduled jobs on %s', (db) => {
  let t: TestServer;
  let operator: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    operator = await t.initialUser();
  });
  afterAll(() => t?.close());

  it('an operator lists the jobs with their schedules; a member gets 403, a guest 401', async () => {
    const jobs = await sdkClient(t.url, operator.token).crons.getFullList();
    expect(jobs).toEqual([
      { id: 'challenges_cleanup', expression: '10 * * * *' },
      { id: 'logs_retention', expression: '40 */6 * * *' },
      { id: 'mail_log_cleanup', expression: '30 * * * *' },
      { id: 'oidc_cleanup', expression: '50 * * * *' },
      { id: 'oidc_sessions_cleanup', expression: '*/5 * * * *' },
      { id: 'security_events_retention', expression: '20 * * * *' },
      { id: 'sessions_cleanup', expression: '0 * * * *' },
    ]);
    const member = await t.verifiedUser();
    const refused = await sdkError(sdkClient(t.url, member.token).crons.getFullList());
    expect(refused.status).toBe(403);
    expect(refused.response).toEqual({ data: {}, message: NOT_ALLOWED, status: 403 });
    const run = await sdkError(sdkClient(t.url, member.token).crons.run('sessions_cleanup'));
    expect(run.status).toBe(403);
    expect((await sdkError(sdkClient(t.url).crons.getFullList())).status).toBe(401);
  });

  it('runs a job now: an expired session is gone, and the run is in the request log', async () => {
    const member = await t.verifiedUser();
    await withDatabase(t, (kdb) =>
      kdb
        .updateTable('sessions')
        .set({ expires: '2026-01-01 00:00:00.000Z' })
        .where('user_id', '=', member.id)
        .execute(),
    );
    const sessionsOf = () =>
      withDatabase(t, (kdb) =>
        kdb.selectFrom('sessions').select('id').where('user_id', '=', member.id).execute(),
      );
    expect(await sessionsOf()).toHaveLength(1);

    const pb = sdkClient(t.url, operator.token);
    expect(await pb.crons.run('sessions_cleanup')).toBe(true);
    expect(await eventually(sessionsOf, (rows) => rows.length === 0)).toEqual([]);

    const runs = await eventually(
      () =>
        pb.logs.getList(1, 10, {
          filter: 'data.job = "sessions_cleanup" && data.trigger = "manual"',
        }),
      (list) => list.items.length > 0,
    );
    expect(runs.items[0]).toMatchObject({
      level: 0,
      message: 'Cron job sessions_cleanup',
      data: { type: 'cron', job: 'sessions_cleanup', trigger: 'manual' },
    });
    expect(runs.items[0]!.data.sessions).toBeGreaterThanOrEqual(1);
  });

  it('oidc_cleanup deletes the provider records past their end and keys retired long ago', async () => {
    const now = Math.floor(Date.now() / 1000);
    const record = (id: string, expires: number) => ({
      model: 'AuthorizationCode',
      id,
      payload: '{}',
      grant_id: null,
      uid: null,
      account_id: null,
      client_id: null,
      session_id: null,
      expires_at: expires,
      consumed_at: null,
    });
    const key = (kid: string, retired: string | null) => ({
      kid,
      jwk: '{}',
      created: '2026-01-01 00:00:00.000Z',
      active_from: '2026-01-01 00:00:00.000Z',
      retired_at: retired,
    });
    await withDatabase(t, async (kdb) => {
      await kdb
        .insertInto('oidc_records')
        .values([record('expired-code', now - 60), record('live-code', now + 600)])
        .execute();
      await kdb
        .insertInto('oidc_keys')
        .values([
          key('retired-long-ago', '2026-01-01 00:00:00.000Z'),
          key('retired-just-now', new Date().toISOString().replace('T', ' ')),
        ])
        .execute();
    });
    const left = () =>
      withDatabase(t, async (kdb) => ({
        records: (
          await kdb
            .selectFrom('oidc_records')
            .select('id')
            .where('id', 'in', ['expired-code', 'live-code'])
            .execute()
        ).map((r) => r.id),
        keys: (
          await kdb
            .selectFrom('oidc_keys')
            .select('kid')
            .where('kid', 'in', ['retired-long-ago', 'retired-just-now'])
            .execute()
        ).map((r) => r.kid),
      }));
    expect(await left()).toEqual({
      records: expect.arrayContaining(['expired-code', 'live-code']),
      keys: expect.arrayContaining(['retired-long-ago', 'retired-just-now']),
    });
    expect(await sdkClient(t.url, operator.token).crons.run('oidc_cleanup')).toBe(true);
    expect(
      await eventually(left, (now) => now.records.length === 1 && now.keys.length === 1),
    ).toEqual({ records: ['live-code'], keys: ['retired-just-now'] });
  });

  it('logs_retention deletes the request log entries past logs.maxDays (5 by default)', async () => {
    const recent = Date.now() - 4 * 24 * 3600_000;
    await insertLogEntries(t, [
      { at: Date.parse('2026-01-01T00:00:00.000Z'), url: '/api/aged' },
      { at: recent, url: '/api/aged' },
    ]);
    const pb = sdkClient(t.url, operator.token);
    const aged = () =>
      pb.logs.getList(1, 10, { filter: 'data.url = "/api/aged"', sort: 'created' });
    expect((await aged()).totalItems).toBe(2);
    expect(await pb.crons.run('logs_retention')).toBe(true);
    const left = await eventually(aged, (list) => list.totalItems === 1);
    expect(left.items.map((r) => r.created)).toEqual([
      new Date(recent).toISOString().replace('T', ' '),
    ]);
  });

  it('security_events_retention: a last sign-in older than every event kept is no longer on record, in the list nor its order', async () => {
    const member = await t.verifiedUser();
    // Their only sign-in, a year ago (past the 90 days kept by default).
    await withDatabase(t, async (d) => {
      await d
        .updateTable('security_events')
        .set({ created: '2025-01-01 00:00:00.000Z' })
        .where('user_id', '=', member.id)
        .execute();
      await d
        .updateTable('member_sort')
        .set({ last_sign_in: '2025-01-01 00:00:00.000Z' })
        .where('user_id', '=', member.id)
        .execute();
    });
    const filter = `id = "${member.id}" || id = "${operator.id}"`;
    const list = async () =>
      (
        await t.get(
          `/api/admin/members?${new URLSearchParams({ filter, sort: '-lastSignIn' })}`,
          operator.token,
        )
      ).body.items as Array<{ id: string; lastSignIn: string | null }>;
    expect((await list()).map((m) => m.id)).toEqual([operator.id, member.id]);
    expect(await sdkClient(t.url, operator.token).crons.run('security_events_retention')).toBe(
      true,
    );
    const after = await eventually(list, (items) => items.at(-1)?.lastSignIn === null);
    expect(after.map((m) => [m.id, m.lastSignIn === null])).toEqual([
      [operator.id, false],
      [member.id, true],
    ]);
    // What the order reads is cleared with it: the member sorts with those never signed in.
    const kept = await withDatabase(t, (d) =>
      d
        .selectFrom('member_sort')
        .select('last_sign_in')
        .where('user_id', '=', member.id)
        .executeTakeFirstOrThrow(),
    );
    expect(kept.last_sign_in).toBeNull();
  });

  it("an unknown job is 404 with PocketBase's message", async () => {
    const pb = sdkClient(t.url, operator.token);
    const missing = await sdkError(pb.crons.run('no_such_job'));
    expect(missing.status).toBe(404);
    expect(missing.response).toEqual({
      data: {},
      message: 'Missing or invalid cron job.',
      status: 404,
    });
  });

  it(
    db === 'postgres'
      ? 'two instances on one database run each scheduled time of a due job once'
      : 'a due job runs at each of its scheduled times',
    async () => {
      // A job due every second, on two more instances of this database (one on SQLite).
      const ran: string[] = [];
      const tick = {
        id: 'test_tick',
        expression: '* * * * * *',
        run: async (trigger: CronTrigger) => {
          if (trigger.kind === 'schedule') ran.push(trigger.scheduled.toISOString());
          return { tick: 1 };
        },
      };
      const config = loadConfig(t.env);
      const instances = await Promise.all(
        (db === 'postgres' ? [1, 2] : [1]).map(() =>
          startServer(config, { logger: false, jobs: [tick] }),
        ),
      );
      try {
        await new Promise((resolve) => setTimeout(resolve, 3500));
      } finally {
        // Closing writes each instance's buffered log rows.
        await Promise.all(instances.map((s) => s.close()));
      }
      expect(ran.length).toBeGreaterThanOrEqual(2);
      expect(new Set(ran).size).toBe(ran.length);

      // Every run recorded once in the shared log (on SQLite, the one instance's).
      const logged = await sdkClient(t.url, operator.token).logs.getList(1, 100, {
        filter: 'data.job = "test_tick" && data.trigger = "schedule"',
      });
      expect(logged.items.map((r) => r.data.scheduled).sort()).toEqual(
        ran.map((iso) => iso.replace('T', ' ')).sort(),
      );
      if (db === 'postgres') {
        const claims = await withDatabase(t, async (kdb) => {
          const { rows } = await sql<{ job: string }>`select job from cron_claims`.execute(kdb);
          return rows.map((r) => r.job);
        });
        expect(claims).toContain('test_tick');
      }
    },
  );

  it(
    db === 'postgres'
      ? "the settings' backup schedule is the job __pbAutoBackup__ on every instance, and each of its times runs once"
      : "the settings' backup schedule is the job __pbAutoBackup__, and it runs",
    async () => {
      const pb = sdkClient(t.url, operator.token);
      // PostgreSQL: another instance of this database, already running when the setting changes.
      const others =
        db === 'postgres' ? [await startServer(loadConfig(t.env), { logger: false })] : [];
      const jobsOn = (url: string) => sdkClient(url, operator.token).crons.getFullList();
      const autoBackups = async () =>
        (await pb.backups.getFullList()).filter((b) => b.key.startsWith('@auto_pb_backup_'));

      try {
        await pb.settings.update({ backups: { cron: '* * * * *', cronMaxKeep: 2 } });
        for (const url of [t.url, ...others.map((s) => s.url)]) {
          const jobs = await eventually(
            () => jobsOn(url),
            (list) => list.some((job) => job.id === '__pbAutoBackup__'),
          );
          // PocketBase's own jobs (`__pb…`) come last.
          expect(jobs.at(-1)).toEqual({ id: '__pbAutoBackup__', expression: '* * * * *' });
        }

        // At the next minute, a backup.
        const made = await eventually(autoBackups, (list) => list.length > 0, 70_000);
        expect(made.map((b) => b.key)).toEqual([
          expect.stringMatching(/^@auto_pb_backup_gatehouse_\d{12}00\.zip$/),
        ]);
        // Room for another instance to run the same minute, if it (wrongly) did.
        await new Promise((resolve) => setTimeout(resolve, 2000));

        // Cleared, the job is gone everywhere.
        await pb.settings.update({ backups: { cron: '' } });
        for (const url of [t.url, ...others.map((s) => s.url)]) {
          const jobs = await eventually(
            () => jobsOn(url),
            (list) => !list.some((job) => job.id === '__pbAutoBackup__'),
          );
          expect(jobs.map((job) => job.id)).not.toContain('__pbAutoBackup__');
        }
      } finally {
        // Closing writes the other instance's buffered log rows.
        await Promise.all(others.map((s) => s.close()));
      }

      // Each scheduled minute was run by one instance: one record each, the first naming the backup.
      const runs = await pb.logs.getList(1, 100, {
        filter: 'data.job = "__pbAutoBackup__" && data.trigger = "schedule"',
        sort: 'created',
      });
      const times = runs.items.map((r) => r.data.scheduled as string);
      expect(times.length).toBeGreaterThanOrEqual(1);
      expect(new Set(times).size).toBe(times.length);
      expect(runs.items[0]).toMatchObject({
        level: 0,
        message: 'Cron job __pbAutoBackup__',
        data: { type: 'cron', backup: (await autoBackups()).at(-1)!.key },
      });
    },
    100_000,
  );
});
