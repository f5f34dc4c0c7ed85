import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNginx, testNginxMain, type NginxProxy } from '../support/nginx.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';

/**
 * The gate with a real nginx: deploy/nginx/gate.conf, as shipped (its TLS lines, Gatehouse's
 * address and the app's swapped for the test's), in front of a small upstream that answers with
 * the headers it received. A member passes with X-Gatehouse-* headers, a guest is sent to sign in
 * and comes back, a member whose session ends is refused on the next request, and no forged
 * X-Gatehouse-* header from the client reaches the upstream.
 */

const SNIPPET = path.resolve(import.meta.dirname, '../../../deploy/nginx/gate.conf');
const WIKI = 'wiki.example.org';
const OPS = 'ops.example.org';

/** An upstream that answers every request with the request's headers (JSON) and counts them. */
async function echoUpstream() {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ url: req.url, headers: req.headers }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The shipped snippet for the test's ports: plain HTTP, one server block per protected host. */
function gateConfig(gatehouse: string, upstream: string, port: number): string {
  const snippet = readFileSync(SNIPPET, 'utf8')
    .replace(/^\s*listen \[::\]:443.*$/m, '')
    .replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${port};`)
    .replace(/^\s*ssl_certificate.*$/gm, '')
    .replaceAll('https://gatehouse.example.org', gatehouse)
    .replace('http://127.0.0.1:3000', upstream);
  expect(snippet).toContain('auth_request /_gatehouse_gate;');
  return snippet + '\n' + snippet.replace(`server_name ${WIKI};`, `server_name ${OPS};`);
}

describe.each(DATABASES)('the gate behind a real nginx on %s', (db) => {
  let t: TestServer;
  let nginx: NginxProxy;
  let upstream: Awaited<ReturnType<typeof echoUpstream>>;
  let operator: User;

  beforeAll(async () => {
    upstream = await echoUpstream();
    t = await startTestServer({
      db,
      env: { GATE_COOKIE_DOMAIN: 'example.org', GATE_HOSTS: `${WIKI}, ${OPS}=operators` },
    });
    operator = await t.initialUser();
    nginx = await startNginx({
      upstreams: [],
      config: (dir, port) => testNginxMain(dir, 64, gateConfig(t.url, upstream.url, port)),
    });
  });
  afterAll(async () => {
    await nginx?.stop();
    await t?.close();
    await upstream?.stop();
  });

  /**
   * A request to a protected app through nginx, as a browser on that host sends it (node:http:
   * fetch would not send another Host).
   */
  function visit(host: string, pathAndQuery: string, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; location: string | undefined; json: () => unknown }>(
      (resolve, reject) => {
        const req = http.request(
          `${nginx.url}${pathAndQuery}`,
          { headers: { ...headers, host } },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                location: res.headers.location,
                json: () => JSON.parse(Buffer.from(body, 'latin1').toString('utf8')),
              }),
            );
          },
        );
        req.on('error', reject);
        req.end();
      },
    );
  }

  /** What the web app's /gate screen does for a signed-in member: the cookie, and where to go. */
  async function pass(token: string, redirect: string) {
    const res = await fetch(`${t.url}/api/gatehouse/gate/pass`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({ redirect }),
    });
    return { res, body: (await res.json()) as Record<string, unknown> };
  }

  function cookieOf(res: Response): string {
    const line = res.headers.getSetCookie().find((c) => c.startsWith('gatehouse_gate='))!;
    return line.split(';')[0]!;
  }

  it('sends a guest to sign in and back; then the member passes with who they are', async () => {
    const member = await t.verifiedUser();
    await t.patch(
      `/api/collections/users/records/${member.id}`,
      { name: 'Zoë Ålund' },
      member.token,
    );
    const before = upstream.seen.length;
    const guest = await visit(WIKI, '/pages/home?tab=1&x=2');
    expect(guest.status).toBe(302);
    const signIn = guest.location;
    expect(signIn).toBe(`${t.url}/gate?redirect=http://${WIKI}/pages/home?tab=1&x=2`);
    expect(upstream.seen.length).toBe(before);

    const back = `http://${WIKI}/pages/home?tab=1&x=2`;
    const { res, body } = await pass(member.token, back);
    expect(res.status).toBe(200);
    expect(body).toEqual({ redirect: back });
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('gatehouse_gate='))!;
    expect(setCookie).toMatch(
      /; Domain=example\.org; Path=\/; Max-Age=\d+; HttpOnly; Secure; SameSite=Lax$/,
    );

    const ok = await visit(WIKI, '/pages/home?tab=1&x=2', { cookie: cookieOf(res) });
    expect(ok.status).toBe(200);
    const seen = ok.json() as { url: string; headers: Record<string, string> };
    expect(seen.url).toBe('/pages/home?tab=1&x=2');
    expect(seen.headers['x-gatehouse-id']).toBe(member.id);
    expect(seen.headers['x-gatehouse-email']).toBe(member.email);
    // Percent-encoded UTF-8 beyond printable ASCII.
    expect(seen.headers['x-gatehouse-name']).toBe('Zo%C3%AB %C3%85lund');
    expect(decodeURIComponent(seen.headers['x-gatehouse-name']!)).toBe('Zoë Ålund');
    expect(seen.headers['x-gatehouse-groups']).toBe('members');
  });

  it('never lets a forged X-Gatehouse-* header through, with or without a member', async () => {
    const member = await t.verifiedUser();
    const forged = {
      'x-gatehouse-id': 'someone-else',
      'x-gatehouse-email': 'boss@example.org',
      'x-gatehouse-groups': 'members,operators',
      'x-gatehouse-name': 'The Boss',
    };
    const before = upstream.seen.length;
    const guest = await visit(WIKI, '/admin', forged);
    expect(guest.status).toBe(302);
    expect(upstream.seen.length).toBe(before);

    const { res } = await pass(member.token, `http://${WIKI}/`);
    const ok = await visit(WIKI, '/admin', {
      ...forged,
      cookie: cookieOf(res),
      // Spelled with underscores: nginx drops such headers.
      x_gatehouse_groups: 'operators',
    } as Record<string, string>);
    expect(ok.status).toBe(200);
    const { headers } = ok.json() as { headers: Record<string, string> };
    expect(headers['x-gatehouse-id']).toBe(member.id);
    expect(headers['x-gatehouse-email']).toBe(member.email);
    expect(headers['x-gatehouse-groups']).toBe('members');
    // No name set: the header is empty, never the forged one.
    expect(headers['x-gatehouse-name'] ?? '').toBe('');
    expect(JSON.stringify(headers)).not.toContain('boss@example.org');
    expect(JSON.stringify(headers)).not.toContain('x_gatehouse');
  });

  it('refuses the next request once the session ends: disabled, or signed out', async () => {
    const member = await t.verifiedUser();
    const { res } = await pass(member.token, `http://${WIKI}/`);
    const cookie = cookieOf(res);
    expect((await visit(WIKI, '/', { cookie })).status).toBe(200);
    const disable = await t.post(`/api/admin/members/${member.id}/disable`, {}, operator.token);
    expect(disable.status, disable.text).toBe(200);
    expect((await visit(WIKI, '/', { cookie })).status).toBe(302);

    const other = await t.verifiedUser();
    const second = cookieOf((await pass(other.token, `http://${WIKI}/`)).res);
    expect((await visit(WIKI, '/', { cookie: second })).status).toBe(200);
    expect((await t.post('/api/gatehouse/logout', {}, other.token)).status).toBe(204);
    expect((await visit(WIKI, '/', { cookie: second })).status).toBe(302);
  });

  it('keeps a host for operators to operators; a forged or moved cookie is nothing', async () => {
    const member = await t.verifiedUser();
    const refused = await pass(member.token, `http://${OPS}/`);
    expect(refused.res.status).toBe(403);
    expect(refused.body.message).toBe(`${OPS} is for operators only.`);
    const memberCookie = cookieOf((await pass(member.token, `http://${WIKI}/`)).res);
    expect((await visit(OPS, '/', { cookie: memberCookie })).status).toBe(302);

    const opCookie = cookieOf((await pass(operator.token, `http://${OPS}/`)).res);
    const ok = await visit(OPS, '/', { cookie: opCookie });
    expect(ok.status).toBe(200);
    const { headers } = ok.json() as { headers: Record<string, string> };
    expect(headers['x-gatehouse-groups']).toBe('members,operators');

    // The signature binds the member: someone else's id in the cookie is refused.
    const [name, value] = memberCookie.split('=') as [string, string];
    const parts = value.split('.');
    parts[2] = operator.id;
    expect((await visit(WIKI, '/', { cookie: `${name}=${parts.join('.')}` })).status).toBe(302);
    // Only hosts the operator listed: the gate sends nobody elsewhere.
    const elsewhere = await pass(member.token, 'https://evil.example.net/');
    expect(elsewhere.res.status).toBe(400);
    expect(elsewhere.res.headers.getSetCookie()).toEqual([]);
  });
});
