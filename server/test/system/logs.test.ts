import { afterAll, describe, expect, it } from 'vitest';
import { PATHS } from '../support/contract.js';
import { request } from '../support/http.js';
import { MailReceiver } from '../support/mail.js';
import { freePort, waitUntil } from '../support/ports.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { inviteCodeFrom, strongPassword } from '../support/server.js';

/**
 * The console as an operator reads it, from a real process: JSON lines (the default when stdout is
 * no terminal) or readable lines (LOG_FORMAT=pretty); no line per request at the default level (the
 * request log holds them), API requests at debug, page files at trace; every mail line with its
 * kind and redacted recipient.
 */
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const PRETTY = /^\d\d:\d\d:\d\d\.\d{3} (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \S/;

type Line = Record<string, unknown>;
const jsonLines = (p: ServerProcess): Line[] =>
  p
    .output()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);

/** Signs up the initial account and asks for its verification mail. */
async function signUpAndAskForMail(p: ServerProcess, email: string, link: string): Promise<void> {
  const password = strongPassword();
  const su = await request(p.url, 'POST', PATHS.records, {
    body: { email, password, passwordConfirm: password, inviteCode: inviteCodeFrom(link) },
  });
  expect(su.status, su.text).toBe(200);
  const rv = await request(p.url, 'POST', PATHS.requestVerification, { body: { email } });
  expect(rv.status).toBe(204);
}

describe('log lines', () => {
  const processes: ServerProcess[] = [];
  const receiver = new MailReceiver();
  afterAll(async () => {
    for (const p of processes) await p.stop();
    await receiver.stop();
  });

  it('JSON by default off a terminal: one JSON object per line, ISO times, the start-up summary, mail printed with kind and redacted recipient, no line per request', async () => {
    const p = await startServerProcess({});
    processes.push(p);
    await waitUntil(async () => p.output().includes('initialAccountLink'), 5000, 'the summary');
    const started = jsonLines(p).find((l) => l.initialAccountLink);
    expect(started).toMatchObject({ level: 30, msg: 'Gatehouse is running', mail: 'console' });

    await signUpAndAskForMail(p, 'logs-json@example.com', String(started!.initialAccountLink));
    await waitUntil(async () => p.output().includes('mail printed'), 5000, 'the printed mail');
    for (const path of ['/', '/favicon.svg', '/assets/missing.js'])
      await request(p.url, 'GET', path);
    await request(p.url, 'GET', PATHS.health);
    await request(p.url, 'DELETE', '/api/gatehouse/sessions/%ff');
    await new Promise((r) => setTimeout(r, 300));

    const lines = jsonLines(p); // throws on any line that is not JSON
    for (const line of lines) expect(String(line.time)).toMatch(ISO);
    const printed = lines.filter((l) => String(l.msg).startsWith('mail printed'));
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatchObject({
      level: 30,
      kind: 'verification',
      to: 'l***@example.com',
      subject: 'Verify your Gatehouse email',
    });
    expect(String(printed[0]!.link)).toMatch(/^http:\/\/app\.test\/verify-email\?token=\S+$/);
    expect(p.output()).not.toContain('logs-json@example.com');
    expect(p.output()).not.toContain('mail sent');
    // At info the request log (GET /api/logs) is each request's record: no console line for it.
    expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
  }, 60_000);

  it('LOG_LEVEL=debug: a JSON line per API request with its id, page files not at debug', async () => {
    const p = await startServerProcess({ LOG_LEVEL: 'debug' });
    processes.push(p);
    await waitUntil(async () => p.output().includes('initialAccountLink'), 5000, 'the summary');
    for (const path of ['/', '/favicon.svg', '/assets/missing.js'])
      await request(p.url, 'GET', path);
    await request(p.url, 'GET', PATHS.health);
    // Paths Fastify's router refuses (a bad escape, an over-long id) are logged like any other.
    await request(p.url, 'DELETE', '/api/gatehouse/sessions/%ff');
    await request(p.url, 'DELETE', PATHS.session('x'.repeat(500)));
    await new Promise((r) => setTimeout(r, 300));

    const requests = jsonLines(p).filter((l) => l.msg === 'request');
    expect(requests.map((l) => l.url)).toContain(PATHS.health);
    expect(requests.find((l) => l.url === '/api/gatehouse/sessions/%ff')).toMatchObject({
      level: 20,
      method: 'DELETE',
      status: 400,
    });
    expect(requests.find((l) => String(l.url).endsWith('x'.repeat(500)))).toMatchObject({
      status: 404,
    });
    expect(requests.every((l) => String(l.url).startsWith('/api/'))).toBe(true);
    // Each names its request (the request's logger is made on its first line).
    const ids = requests.map((l) => l.reqId);
    expect(ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  }, 60_000);

  it('LOG_FORMAT=pretty: one readable line per event; page files at trace; a retry names the mail', async () => {
    // Nothing listens there: every attempt fails.
    const p = await startServerProcess({
      LOG_FORMAT: 'pretty',
      LOG_LEVEL: 'trace',
      SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
      MAIL_RETRY_BASE_MS: '60000',
    });
    processes.push(p);
    const link = /http:\/\/app\.test\/signup\?code=\S+/.exec(p.output())?.[0];
    expect(link, p.output()).toBeDefined();
    await signUpAndAskForMail(p, 'pretty-logs@example.com', link!);
    expect((await request(p.url, 'GET', '/')).status).toBe(200);
    // A line is written after its answer is sent, and reaches this process through a pipe.
    await waitUntil(
      async () =>
        p.output().includes('mail not sent; will retry') && p.output().includes('GET / 200'),
      10_000,
      'the retry line and the line of the page',
    );

    const events = p
      .output()
      .split('\n')
      .filter((l) => /^\d\d:\d\d/.test(l));
    expect(events.length).toBeGreaterThan(3);
    for (const line of events) expect(line).toMatch(PRETTY);
    expect(p.output()).not.toContain('{"level"');
    expect(p.output()).not.toContain('pretty-logs@example.com');
    expect(events.find((l) => l.includes('GET / 200'))).toMatch(/ TRACE GET \/ 200 \d+ ms /);
    expect(events.find((l) => l.includes('POST /api/'))).toMatch(/ DEBUG POST \/api\//);
    const retry = events.find((l) => l.includes('mail not sent; will retry'));
    expect(retry).toMatch(/ WARN {2}mail not sent; will retry mailId=\S+ kind=verification /);
    expect(retry).toContain('to=p***@example.com');
    expect(retry).toMatch(/attempts=1 retryInMs=60000 err=/);
  }, 60_000);

  it('mail sent by SMTP is logged as sent, with its kind and redacted recipient', async () => {
    await receiver.start();
    const p = await startServerProcess({ LOG_FORMAT: 'json', SMTP_URL: receiver.url });
    processes.push(p);
    await waitUntil(async () => p.output().includes('initialAccountLink'), 5000, 'the summary');
    const link = String(jsonLines(p).find((l) => l.initialAccountLink)!.initialAccountLink);
    await signUpAndAskForMail(p, 'sent-logs@example.com', link);
    await waitUntil(async () => p.output().includes('"mail sent"'), 10_000, 'the sent line');
    const sent = jsonLines(p).filter((l) => l.msg === 'mail sent');
    expect(sent[0]).toMatchObject({
      kind: 'verification',
      to: 's***@example.com',
      subject: 'Verify your Gatehouse email',
    });
    expect(p.output()).not.toContain('mail printed');
    expect(p.output()).not.toContain('sent-logs@example.com');
  }, 60_000);
});
