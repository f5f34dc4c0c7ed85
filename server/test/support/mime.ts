/**
 * A minimal MIME parser for the messages the test SMTP receivers capture: headers (unfolded,
 * RFC 2047 words decoded), multipart bodies, quoted-printable and base64 transfer encodings.
 * `raw` is a latin1 string, i.e. one char per byte. Shared by the API tests and the browser
 * journeys (e2e/support/global-setup.ts).
 */

export interface ParsedMail {
  subject: string;
  /** The decoded text/plain part ('' when absent). */
  text: string;
  /** The decoded text/html part ('' when absent). */
  html: string;
  headers: Record<string, string>;
}

interface Entity {
  headers: Record<string, string>;
  body: string;
}

function splitEntity(raw: string): Entity {
  const m = /\r?\n\r?\n/.exec(raw);
  const head = m ? raw.slice(0, m.index) : raw;
  const body = m ? raw.slice(m.index + m[0].length) : '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    if (!(name in headers)) headers[name] = line.slice(i + 1).trim();
  }
  return { headers, body };
}

function param(header: string, name: string): string | undefined {
  const re = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i');
  const m = re.exec(header);
  return m ? (m[1] ?? m[2]) : undefined;
}

function decodeBody(body: string, encoding: string, charset: string): string {
  let bytes: Buffer;
  const enc = encoding.toLowerCase();
  if (enc === 'quoted-printable') {
    const s = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    bytes = Buffer.from(s, 'latin1');
  } else if (enc === 'base64') {
    bytes = Buffer.from(body.replace(/\s+/g, ''), 'base64');
  } else {
    bytes = Buffer.from(body, 'latin1');
  }
  const cs = charset.toLowerCase();
  return cs === 'iso-8859-1' || cs === 'latin1' ? bytes.toString('latin1') : bytes.toString('utf8');
}

function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(
      /=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g,
      (_, _charset: string, kind: string, text: string) => {
        if (kind.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
        const s = text
          .replace(/_/g, ' ')
          .replace(/=([0-9A-Fa-f]{2})/g, (__, h: string) => String.fromCharCode(parseInt(h, 16)));
        return Buffer.from(s, 'latin1').toString('utf8');
      },
    );
}

function collectParts(entity: Entity, out: { text: string; html: string }): void {
  const type = entity.headers['content-type'] ?? 'text/plain';
  const mime = type.split(';')[0]!.trim().toLowerCase();
  if (mime.startsWith('multipart/')) {
    const boundary = param(type, 'boundary');
    if (!boundary) return;
    const pieces = entity.body.split(`--${boundary}`);
    // pieces[0] is the preamble; a piece starting with "--" is the end marker.
    for (const piece of pieces.slice(1)) {
      if (piece.startsWith('--')) break;
      collectParts(splitEntity(piece.replace(/^\r?\n/, '')), out);
    }
    return;
  }
  const encoding = entity.headers['content-transfer-encoding'] ?? '7bit';
  const charset = param(type, 'charset') ?? 'utf-8';
  const decoded = decodeBody(entity.body, encoding, charset);
  if (mime === 'text/plain' && !out.text) out.text = decoded;
  else if (mime === 'text/html' && !out.html) out.html = decoded;
}

export function parseMail(raw: string): ParsedMail {
  const root = splitEntity(raw);
  const out = { text: '', html: '' };
  collectParts(root, out);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(root.headers)) headers[k] = decodeWords(v);
  return { subject: headers['subject'] ?? '', text: out.text, html: out.html, headers };
}
