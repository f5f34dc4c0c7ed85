import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * While the server shuts down, requests still arriving on open connections are refused with
 * 503 in PocketBase's envelope (not the HTTP framework's own body), with Retry-After.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once the port refuses new connections (the server has begun closing). */
async function untilRefused(host: string, port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const refused = await new Promise<boolean>((resolve) => {
      const probe = net.connect(port, host);
      probe.once('connect', () => {
        probe.destroy();
        resolve(false);
      });
      probe.once('error', () => resolve(true));
    });
    if (refused) return;
    await sleep(25);
  }
  throw new Error('the server kept accepting connections');
}

describe('shutting down', () => {
  let t: TestServer | undefined;
  afterAll(() => t?.close());

  it('a request arriving while the server closes gets the 503 envelope with Retry-After', async () => {
    t = await startTestServer({ db: 'sqlite' });
    const { hostname, port } = new URL(t.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));

    // A sign-in whose body is still on its way keeps the connection busy through the close.
    const body = JSON.stringify({ identity: 'nobody@example.com', password: 'Wrong-pass-123' });
    socket.write(
      `POST ${PATHS.login} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await sleep(200);
    const closed = t.stop();
    // Fastify marks itself closing before it stops listening.
    await untilRefused(hostname, Number(port));
    // The rest of the body, and a second request on the same connection.
    socket.write(`${body.slice(10)}GET ${PATHS.health} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    await Promise.race([ended, sleep(10_000)]);
    await closed;
    socket.destroy();

    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses, received).toHaveLength(2);
    const second = responses[1]!;
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nretry-after: \d+\r\n/i);
    const json = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4));
    expect(json).toEqual({ data: {}, message: MSG[503], status: 503 });
  }, 30_000);
});
