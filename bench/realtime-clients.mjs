/* global console, process, fetch, setTimeout, URL */
// The realtime benchmark's client side, in its own process (bench/realtime.mjs starts it):
// opens COUNT streams to GET /api/realtime on raw sockets, subscribes each to `users/{id}` with
// the member's token, then reports on stdin's "go" line when each stream got the next event.
// Protocol on stdout: "ready", then "done {firstMs, lastMs, received}" (epoch milliseconds).
import net from 'node:net';
import readline from 'node:readline';

const [base, token, userId, countText] = process.argv.slice(2);
const count = Number(countText);
const { hostname, port } = new URL(base);
const topic = `users/${userId}`;

function openStream() {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const stream = { socket, clientId: '', gotAt: 0 };
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      if (stream.clientId && !stream.gotAt) {
        if (chunk.includes(`event:${topic}`)) stream.gotAt = Date.now();
        return;
      }
      buffer += chunk;
      const match = /"clientId":"(\w+)"/.exec(buffer);
      if (match && !stream.clientId) {
        stream.clientId = match[1];
        buffer = '';
        resolve(stream);
      }
    });
    socket.write(`GET /api/realtime HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  });
}

async function subscribe(stream) {
  const res = await fetch(`${base}/api/realtime`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: token },
    body: JSON.stringify({ clientId: stream.clientId, subscriptions: [topic] }),
  });
  if (res.status !== 204) throw new Error(`subscribe answered ${res.status}: ${await res.text()}`);
}

const streams = [];
// In batches: the listen backlog and the server's event loop take connections at their pace.
for (let i = 0; i < count; i += 250) {
  const batch = await Promise.all(
    Array.from({ length: Math.min(250, count - i) }, () => openStream()),
  );
  await Promise.all(batch.map(subscribe));
  streams.push(...batch);
}
console.log('ready');

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line !== 'go') continue;
  const deadline = Date.now() + 30_000;
  while (streams.some((s) => !s.gotAt) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const times = streams.map((s) => s.gotAt).filter(Boolean);
  console.log(
    `done ${JSON.stringify({ firstMs: Math.min(...times), lastMs: Math.max(...times), received: times.length })}`,
  );
  for (const s of streams) s.socket.destroy();
  process.exit(0);
}
