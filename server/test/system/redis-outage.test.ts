import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { type ApiResponse, freshAddress, request } from '../support/http.js';
import { waitUntil } from '../support/ports.js';
import { RedisProcess } from '../support/redis.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { uniqueEmail } from '../support/server.js';

/**
 * REDIS_URL with Redis going away and coming back: a redis-server of the test's own, killed and
 * restarted on the same port, under a server in its own process whose console (pino's JSON lines)
 * the test reads.
 */
const ip = freshAddress;
const DOWN = /Redis unavailable/;
const BACK = /Redis is back/;

async function awayFromWindowEdge(windowMs: number, needMs = 4000): Promise<void> {
  const into = Date.now() % windowMs;
  if (into > windowMs - needMs) await new Promise((r) => setTimeout(r, windowMs - into + 50));
}

describe('rate limits through a Redis outage', () => {
  let redis: RedisProcess;
  let server: ServerProcess;
  beforeAll(async () => {
    redis = await RedisProcess.start();
    server = await startServerProcess({
      RATE_LIMITS: 'on',
      TRUST_PROXY: '1',
      REDIS_URL: redis.url,
      LOG_LEVEL: 'info',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
  });

  const badLogin = (from: string) =>
    request(server.url, 'POST', PATHS.login, {
      headers: { 'X-Forwarded-For': from },
      body: { identity: uniqueEmail('outage'), password: 'Wrong-password-123' },
    });
  const logLines = (re: RegExp) =>
    server
      .output()
      .split('\n')
      .filter((line) => re.test(line));

  async function elevenLogins(): Promise<ApiResponse[]> {
    const from = ip();
    await awayFromWindowEdge(60_000);
    const res: ApiResponse[] = [];
    for (let i = 0; i < 11; i++) res.push(await badLogin(from));
    return res;
  }

  it('keeps limiting in memory while Redis is down, logs once each way, and counts in Redis again once it is back', async () => {
    // Up: counts are in Redis.
    expect((await badLogin(ip())).status).toBe(400);
    expect(await redis.keys('gatehouse:rl:login:*')).not.toHaveLength(0);

    await redis.stop('SIGKILL');
    const down = await elevenLogins();
    expect(down.map((r) => r.status)).toEqual([...Array(10).fill(400), 429]);
    expect(down[10]!.body).toEqual({ data: {}, message: MSG[429], status: 429 });
    for (let i = 0; i < 20; i++) {
      expect((await request(server.url, 'GET', PATHS.health)).status).toBe(200);
    }
    await waitUntil(() => logLines(DOWN).length > 0, 5000, 'the "Redis unavailable" line');
    expect(logLines(DOWN)).toHaveLength(1);
    expect(logLines(/allowing/)).toHaveLength(0);

    // Back on the same port, empty: the server reconnects by itself and counts there again.
    await redis.start();
    await waitUntil(
      async () => {
        await request(server.url, 'GET', PATHS.health);
        return (await redis.keys('gatehouse:rl:api:*')).length > 0;
      },
      20_000,
      'counts to reach Redis again',
    );
    const back = await elevenLogins();
    expect(back.map((r) => r.status)).toEqual([...Array(10).fill(400), 429]);
    expect(await redis.keys('gatehouse:rl:login:*')).not.toHaveLength(0);
    await waitUntil(() => logLines(BACK).length > 0, 5000, 'the "Redis is back" line');
    expect(logLines(BACK)).toHaveLength(1);
    expect(logLines(DOWN)).toHaveLength(1);
  });
});
