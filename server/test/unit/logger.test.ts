import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChild } from '../../src/logger.js';

/** A pino logger at `level` whose lines land in `lines`, redacting `token` as the server's does. */
function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const log = pino({ level, redact: { paths: ['token'], censor: '[redacted]' } }, stream);
  return { log, lines };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('a request logger made on first use', () => {
  it('writes with its bindings and the parent redaction; drops lines below the level', async () => {
    const { log, lines } = capture('info');
    const child = lazyChild(log, { reqId: 'req-7' }, {});
    child.debug('not shown');
    child.info({ token: 'secret', route: '/x' }, 'request');
    child.warn('careful');
    await flush();
    expect(lines.map((l) => [l.msg, l.reqId, l.token])).toEqual([
      ['request', 'req-7', '[redacted]'],
      ['careful', 'req-7', undefined],
    ]);
    expect(child.level).toBe('info');
    expect(child.isLevelEnabled('debug')).toBe(false);
    expect(child.bindings()).toEqual({ reqId: 'req-7' });
  });

  it('a route level of its own takes effect, and its children keep the request id', async () => {
    const { log, lines } = capture('info');
    const child = lazyChild(log, { reqId: 'req-8' }, { level: 'debug' });
    child.debug('shown');
    child.child({ part: 'mail' }).info('nested');
    await flush();
    expect(lines.map((l) => [l.msg, l.reqId, l.part])).toEqual([
      ['shown', 'req-8', undefined],
      ['nested', 'req-8', 'mail'],
    ]);
  });
});
