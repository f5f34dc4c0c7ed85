/* global setTimeout */
// @ts-check
// Ports and waiting, shared by the server's tests, the browser journeys' setup and the benchmarks
// (plain JavaScript with JSDoc types, so that bench/*.mjs imports it without a build).
import net from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now (the OS picks it). Another process may
 * take it before the caller does; on a test machine that is rare enough to live with.
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Whether something accepts connections on 127.0.0.1:`port`.
 * @param {number} port
 * @returns {Promise<boolean>}
 */
export function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `ready` every `intervalMs` (50) until it returns something truthy, and returns that;
 * throws `Timed out after {ms} ms waiting for {what}` after `ms`. An error `ready` throws ends the
 * wait with that error.
 * @template T
 * @param {() => T | Promise<T>} ready
 * @param {number} ms
 * @param {string} what
 * @param {{ intervalMs?: number }} [options]
 * @returns {Promise<T>}
 */
export async function waitUntil(ready, ms, what, { intervalMs = 50 } = {}) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await ready();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
