import { pino } from 'pino';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppEvent,
  EVENTS_CHANNEL,
  LocalEvents,
  openEvents,
  PostgresEvents,
} from '../../src/core/events.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/connect.js';
import { waitUntil } from '../support/ports.js';
import { createPgDatabase } from '../support/server.js';

/**
 * The channel between instances (core/events.ts): each "instance" here is its own pool and its
 * own listening connection on one real PostgreSQL database, as two server processes have.
 */
const log = pino({ level: 'silent' });

function collect(events: { subscribe(l: (e: AppEvent) => void): () => void }) {
  const seen: AppEvent[] = [];
  events.subscribe((e) => seen.push(e));
  return seen;
}

describe('events between instances on PostgreSQL', () => {
  let database: { url: string; drop: () => Promise<void> };
  const handles: DatabaseHandle[] = [];
  const channels: PostgresEvents[] = [];

  async function instance(): Promise<PostgresEvents> {
    const handle = openDatabase({ dataDir: '', databaseUrl: database.url });
    handles.push(handle);
    const events = (await openEvents(database.url, handle.db, log)) as PostgresEvents;
    channels.push(events);
    return events;
  }

  beforeAll(async () => {
    database = await createPgDatabase();
  });
  afterAll(async () => {
    for (const c of channels) await c.close();
    for (const h of handles) await h.close();
    await database?.drop();
  });

  it('an event published on one reaches the other once, and its own listeners at once', async () => {
    const a = await instance();
    const b = await instance();
    const onA = collect(a);
    const onB = collect(b);
    const event = {
      type: 'session-ended',
      userId: 'u1',
      sessionId: 's1',
    } as const;
    a.publish(event);
    // Local delivery does not wait for the database: it has happened after one microtask.
    await Promise.resolve();
    await Promise.resolve();
    expect(onA).toEqual([event]);
    await waitUntil(() => onB.length === 1, 10_000, 'the event on the other instance');
    expect(onB).toEqual([event]);
    // Some time later neither has a copy more (A ignores its own notification).
    await new Promise((r) => setTimeout(r, 300));
    expect(onA).toHaveLength(1);
    expect(onB).toHaveLength(1);
  });

  it('every kind of event arrives intact, in order', async () => {
    const a = await instance();
    const b = await instance();
    const onB = collect(b);
    const sent = [
      {
        type: 'record',
        collection: 'invite_codes',
        action: 'delete',
        record: { id: 'c1', code: 'AAAA-BBBB' },
        userId: 'u2',
      },
      { type: 'user-changed', userId: 'u2' },
      { type: 'session-ended', userId: 'u2', sessionId: null },
      { type: 'oauth2', clientId: 'x', ip: '127.0.0.1', payload: { state: 'x', code: 'y' } },
    ] as const;
    for (const e of sent) a.publish(e);
    await waitUntil(() => onB.length === sent.length, 10_000, 'all four events');
    expect(onB).toEqual(sent);
  });

  it('a payload past PostgreSQL’s limit stays on its own instance, and nothing breaks', async () => {
    const a = await instance();
    const b = await instance();
    const onA = collect(a);
    const onB = collect(b);
    const big = {
      type: 'record',
      collection: 'users',
      action: 'update',
      record: { id: 'u3', padding: 'x'.repeat(9000) },
      userId: 'u3',
    } as const;
    a.publish(big);
    a.publish({ type: 'user-changed', userId: 'u3' });
    await waitUntil(() => onB.length === 1, 10_000, 'the small event');
    expect(onB).toEqual([{ type: 'user-changed', userId: 'u3' }]);
    expect(onA.map((e) => e.type)).toEqual(['record', 'user-changed']);
  });

  it('a notification that is not ours (bad JSON, unknown type) is ignored', async () => {
    const b = await instance();
    const onB = collect(b);
    const raw = new pg.Client({ connectionString: database.url });
    await raw.connect();
    try {
      await raw.query('select pg_notify($1, $2)', [EVENTS_CHANNEL, 'not json']);
      await raw.query('select pg_notify($1, $2)', [
        EVENTS_CHANNEL,
        JSON.stringify({ o: 'elsewhere', e: { type: 'drop-tables' } }),
      ]);
      await raw.query('select pg_notify($1, $2)', [
        EVENTS_CHANNEL,
        JSON.stringify({ o: 'elsewhere', e: { type: 'user-changed', userId: 'u4' } }),
      ]);
    } finally {
      await raw.end();
    }
    await waitUntil(() => onB.length === 1, 10_000, 'the one valid event');
    expect(onB).toEqual([{ type: 'user-changed', userId: 'u4' }]);
  });

  it('a lost listening connection comes back by itself, with a resync, and events flow again', async () => {
    const a = await instance();
    const b = await instance();
    const onB = collect(b);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      // Ends every LISTEN connection of this database (the pools' connections do not listen).
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid() and query like 'LISTEN%'`,
      );
    } finally {
      await admin.end();
    }
    await waitUntil(() => onB.some((e) => e.type === 'resync'), 15_000, 'the resync');
    await waitUntil(() => a.listening && b.listening, 15_000, 'both listening again');
    a.publish({ type: 'user-changed', userId: 'u5' });
    await waitUntil(
      () => onB.some((e) => e.type === 'user-changed' && e.userId === 'u5'),
      10_000,
      'the event after the reconnect',
    );
  });
});

describe('events on one instance (SQLite)', () => {
  it('reach every listener; a listener that throws stops no other; unsubscribe stops delivery', async () => {
    const events = new LocalEvents(log);
    const seen: string[] = [];
    events.subscribe(() => {
      throw new Error('broken listener');
    });
    const stop = events.subscribe((e) => seen.push(e.type));
    events.publish({ type: 'user-changed', userId: 'u6' });
    await Promise.resolve();
    expect(seen).toEqual(['user-changed']);
    stop();
    events.publish({ type: 'user-changed', userId: 'u6' });
    await Promise.resolve();
    expect(seen).toEqual(['user-changed']);
  });
});
