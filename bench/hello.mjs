/* global process */
// The baseline: a bare node:http hello-world, run as its own process by run.mjs.
import http from 'node:http';

const port = Number(process.argv[2] ?? 0);
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('hello world');
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`ready ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
