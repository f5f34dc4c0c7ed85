import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate, siteForTest, tempDir } from '../support/cluster.js';
import { MSG } from '../support/contract.js';
import { request } from '../support/http.js';
import { startNginx, type NginxProxy } from '../support/nginx.js';
import { freePort, waitUntil } from '../support/ports.js';
import { openStream, type RawStream } from '../support/realtime.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The shipped nginx site (deploy/nginx/gatehouse.conf, as npm run test:cluster runs it) in front of
 * one instance: its `limit_conn` holds one client address to 100 open realtime streams for the
 * whole site, whatever each instance allows (this one runs with RATE_LIMITS=off, so every refusal
 * here is nginx's). Needs nginx and openssl (npm test installs them as root on Debian); without
 * them this fails.
 */
describe('the nginx site bounds realtime streams per client address', () => {
  let t: TestServer;
  let nginx: NginxProxy;
  let removeCerts = () => {};
  const open: RawStream[] = [];
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite', env: { TRUST_PROXY: '1' } });
    const [certDir, remove] = tempDir('gh-cert-');
    removeCerts = remove;
    const { cert, key } = selfSignedCertificate(certDir);
    const ports = { tls: await freePort(), redirect: await freePort() };
    nginx = await startNginx({
      upstreams: [],
      config: (dir, port) => siteForTest(dir, port, { upstreams: [t.url], ports, cert, key }),
    });
  }, 60_000);
  afterAll(async () => {
    for (const stream of open.splice(0)) stream.close();
    await nginx?.stop();
    await t?.close();
    removeCerts();
  });

  const openThroughNginx = async () => {
    const stream = await openStream(nginx.url);
    if (stream.status === 200) open.push(stream);
    return stream;
  };

  it('100 streams from one address pass; the 101st is 429 in the API’s envelope; closing one frees a slot', async () => {
    const streams = await Promise.all(Array.from({ length: 100 }, openThroughNginx));
    expect(streams.map((s) => s.status)).toEqual(Array(100).fill(200));
    expect(streams.every((s) => s.clientId !== '')).toBe(true);

    // (A stream first: without the limit it would open, and a plain request would wait for ever.)
    expect((await openThroughNginx()).status).toBe(429);
    const refused = await request(nginx.url, 'GET', '/api/realtime');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ data: {}, message: MSG[429], status: 429 });
    expect(refused.headers.server).toMatch(/^nginx/);
    // Only the streams are bounded: the rest of the API answers as before.
    expect((await request(nginx.url, 'GET', '/api/health')).status).toBe(200);

    streams[0]!.close();
    await waitUntil(async () => (await openThroughNginx()).status === 200, 5000, 'the freed slot');
  });
});
