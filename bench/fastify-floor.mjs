/* global process */
// A second reference, run as its own process by load.mjs: bare Fastify (the project's version)
// answering GET /api/invite-codes with the same shape, response schema and headers as Gatehouse,
// five fixed codes, no token, no database. What the framework alone costs per answer; the
// distance from it to Gatehouse is ours (auth, session, reads, hooks).
import Fastify from 'fastify';

const port = Number(process.argv[2] ?? 0);
const codes = Array.from({ length: 5 }, (_, i) => ({
  id: `floor00000000${i}`.slice(-15),
  code: `AAAA-BBBB-CCCC-DDDD-EEE${i}`,
  created: '2026-11-24 12:00:00.000Z',
}));
const headers = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin-allow-popups',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};
const codeSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, code: { type: 'string' }, created: { type: 'string' } },
};

const app = Fastify({ logger: false });
app.addHook('onRequest', (request, reply, done) => {
  reply.headers(headers);
  done();
});
app.get(
  '/api/invite-codes',
  {
    schema: {
      response: {
        200: { type: 'object', properties: { codes: { type: 'array', items: codeSchema } } },
      },
    },
  },
  async () => ({ codes }),
);
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`ready ${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
