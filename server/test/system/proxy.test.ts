import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { request, type ApiResponse } from '../support/http.js';
import { startNginx, type NginxProxy } from '../support/nginx.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/server.js';

/**
 * Behind a real reverse proxy: nginx appends the address it sees to X-Forwarded-For, so the
 * entries before it are whatever the client sent. With TRUST_PROXY=1 only nginx's own entry is
 * believed, so a forged header cannot give a client a fresh budget. Needs nginx (npm test installs
 * it); without it this fails, it does not skip.
 */
const forged = () =>
  Array.from({ length: randomInt(1, 4) }, () =>
    [randomInt(1, 224), randomInt(0, 256), randomInt(0, 256), randomInt(1, 255)].join('.'),
  ).join(', ');

async function awayFromWindowEdge(windowMs: number, needMs = 4000): Promise<void> {
  const into = Date.now() % windowMs;
  if (into > windowMs - needMs) await new Promise((r) => setTimeout(r, windowMs - into + 50));
}

describe('behind nginx with TRUST_PROXY=1', () => {
  let t: TestServer;
  let nginx: NginxProxy;
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite', env: { RATE_LIMITS: 'on', TRUST_PROXY: '1' } });
    nginx = await startNginx({ upstreams: [t.url] });
  });
  afterAll(async () => {
    await nginx?.stop();
    await t?.close();
  });

  it('a forged X-Forwarded-For (a new made-up address each time) does not escape the per-IP sign-in limit', async () => {
    await awayFromWindowEdge(60_000);
    const res: ApiResponse[] = [];
    for (let i = 0; i < 11; i++) {
      res.push(
        await request(nginx.url, 'POST', PATHS.login, {
          headers: { 'X-Forwarded-For': forged() },
          body: { identity: uniqueEmail('proxied'), password: 'Wrong-password-123' },
        }),
      );
    }
    expect(res.map((r) => r.status)).toEqual([...Array(10).fill(400), 429]);
    expect(res[10]!.body).toEqual({ data: {}, message: MSG[429], status: 429 });
    // The answers really came through nginx.
    expect(res[0]!.headers.server).toMatch(/^nginx/);
  });
});
