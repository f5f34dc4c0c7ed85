import http from 'node:http';
import { waitUntil } from './ports.js';

export interface SseMessage {
  id: string;
  event: string;
  data: string;
}

/** One `GET /api/realtime` read by hand: every message, and whether the server ended it. */
export interface RawStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  clientId: string;
  messages: SseMessage[];
  /** Resolves when the server ends the stream (or it breaks). */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Messages named `event` so far. */
  named(event: string): SseMessage[];
  close(): void;
}

/** `headers`: e.g. X-Forwarded-For, to open it from another address (with TRUST_PROXY). */
export async function openStream(
  baseUrl: string,
  headers: Record<string, string> = {},
): Promise<RawStream> {
  const messages: SseMessage[] = [];
  let ended = false;
  let finish!: () => void;
  const endedPromise = new Promise<void>((resolve) => (finish = resolve));
  const request = http.get(`${baseUrl}/api/realtime`, { headers });
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  let buffer = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    buffer += chunk;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const message: SseMessage = { id: '', event: 'message', data: '' };
      let isComment = true;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        isComment = false;
        const colon = line.indexOf(':');
        const field = line.slice(0, colon);
        const value = line.slice(colon + 1);
        if (field === 'id') message.id = value;
        else if (field === 'event') message.event = value;
        else if (field === 'data') message.data += value;
      }
      if (!isComment) messages.push(message);
    }
  });
  const done = () => {
    ended = true;
    finish();
  };
  response.on('end', done);
  response.on('close', done);
  response.on('error', done);
  await waitUntil(() => messages.length > 0 || ended, 10_000, 'PB_CONNECT');
  const first = messages[0];
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    clientId: first ? (JSON.parse(first.data) as { clientId: string }).clientId : '',
    messages,
    ended: endedPromise,
    isEnded: () => ended,
    named: (event) => messages.filter((m) => m.event === event),
    close: () => request.destroy(),
  };
}
