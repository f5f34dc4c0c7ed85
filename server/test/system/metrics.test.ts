import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'metrics-token-for-the-test-0123456789';

describe('GET /api/metrics', () => {
  let t: TestServer;
  let off: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite', env: { METRICS_TOKEN: TOKEN } });
    off = await startTestServer({ db: 'sqlite' });
  });
  afterAll(async () => {
    await t?.close();
    await off?.close();
  });

  const metrics = (s: TestServer, authorization?: string) =>
    s.request('GET', '/api/metrics', {
      headers: authorization === undefined ? {} : { Authorization: authorization },
    });

  it('without METRICS_TOKEN the endpoint does not exist (404)', async () => {
    const res = await metrics(off, `Bearer ${TOKEN}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ data: {}, message: MSG[404], status: 404 });
  });

  it('no token or a wrong one is a 401', async () => {
    for (const header of [undefined, '', `Bearer ${TOKEN}x`, TOKEN.slice(1), 'Bearer x']) {
      const res = await metrics(t, header);
      expect(res.status, String(header)).toBe(401);
      expect(res.body).toEqual({ data: {}, message: MSG[401], status: 401 });
    }
  });

  it('the token gets Prometheus text: requests by route pattern, sign-ins, outbox, sessions, process', async () => {
    const u = await t.verifiedUser();
    expect((await t.login(u.email, 'Wrong-Password-123')).status).toBe(400);
    expect((await t.get(PATHS.record(u.id), u.token)).status).toBe(200);
    const res = await metrics(t, `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(text).toContain(
      'gatehouse_http_requests_total{method="GET",route="/api/collections/users/records/:id",status="200"} 1',
    );
    // The matched pattern, never the raw URL with its id.
    expect(text).not.toContain(u.id);
    expect(text).toMatch(/gatehouse_http_request_duration_seconds_bucket\{le="0.05",method="POST"/);
    expect(text).toMatch(/gatehouse_sign_ins_total\{outcome="success"\} [1-9]/);
    expect(text).toMatch(/gatehouse_sign_ins_total\{outcome="failure"\} 1/);
    expect(text).toMatch(/^gatehouse_outbox_queued \d+$/m);
    expect(text).toMatch(/^gatehouse_outbox_failing \d+$/m);
    expect(text).toMatch(/^gatehouse_mail_sent_last_24h [1-9]\d*$/m);
    expect(text).toMatch(/^gatehouse_sessions_live [1-9]\d*$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
    // A lower-case bearer prefix works too, as for every token.
    expect((await metrics(t, `bearer ${TOKEN}`)).status).toBe(200);
  });
});
