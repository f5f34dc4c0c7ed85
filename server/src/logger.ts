import { pino, type DestinationStream, type Logger } from 'pino';

/** How log lines look: one JSON object per line (production) or one readable line (a person). */
export type LogFormat = 'json' | 'pretty';

/**
 * Pino with secrets redacted wherever they could appear in a logged object, ISO times, and in the
 * `pretty` format one readable line per event: `14:03:07.412 INFO  mail printed kind=… to=…`.
 */
export function createLogger(level: string, format: LogFormat = 'json'): Logger {
  const options = {
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        '*.password',
        '*.passwordConfirm',
        '*.token',
        'password',
        'token',
      ],
      censor: '[redacted]',
    },
  };
  return format === 'pretty' ? pino(options, prettyStream()) : pino(options);
}

/**
 * A logger for the few lines an operator must always see whatever LOG_LEVEL says (the start-up
 * summary with the initial account's link, mail printed instead of sent): `log` at info at least.
 */
export function alwaysShown(log: Logger): Logger {
  return log.isLevelEnabled('info') ? log : log.child({}, { level: 'info' });
}

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Written by pino on every line; the pretty format leaves them out. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId']);

function prettyStream(): DestinationStream {
  return { write: (line: string) => void process.stdout.write(prettyLine(line)) };
}

/** One pino JSON line → `HH:MM:SS.mmm LEVEL message key=value …` (an error's stack below it). */
export function prettyLine(line: string): string {
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = new Date(String(event.time));
  const clock = Number.isNaN(time.getTime())
    ? String(event.time ?? '')
    : `${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}.${String(time.getMilliseconds()).padStart(3, '0')}`;
  const level = (LEVELS[Number(event.level)] ?? String(event.level)).padEnd(5);
  let message = String(event.msg ?? '');
  const fields = Object.entries(event).filter(([key]) => !HIDDEN.has(key));
  let stack = '';
  const parts: string[] = [];
  if (message === 'request') {
    // GET /api/health 200 1 ms 127.0.0.1
    const { method, url, status, ms, ip } = event as Record<string, unknown>;
    message = `${String(method)} ${String(url)} ${String(status)} ${String(ms)} ms ${String(ip)}`;
    fields.length = 0;
  }
  for (const [key, value] of fields) {
    if (key === 'err' && value && typeof value === 'object') {
      const err = value as { message?: string; stack?: string };
      parts.push(`err=${quote(String(err.message ?? ''))}`);
      if (err.stack) stack = `\n    ${err.stack.split('\n').slice(1).join('\n    ').trim()}`;
      continue;
    }
    parts.push(`${key}=${typeof value === 'string' ? quote(value) : JSON.stringify(value)}`);
  }
  return `${clock} ${level} ${[message, ...parts].join(' ')}${stack}\n`;
}

const pad = (n: number) => String(n).padStart(2, '0');
const quote = (s: string) => (/^[^\s"=]+$/.test(s) ? s : JSON.stringify(s));

/**
 * A request's logger, made on first use. Fastify gives every request a child logger bound to its
 * id, and making a pino child with our redaction costs more than checking the request's token:
 * most requests write nothing through it, so the real child is made only for a first line.
 */
export function lazyChild(
  parent: Logger,
  bindings: pino.Bindings,
  options: pino.ChildLoggerOptions,
): Logger {
  // A route's own level or serializers: made at once, so the level checks below stay the parent's.
  if (Object.keys(options).length > 0) return parent.child(bindings, options);
  return new LazyChild(parent, bindings) as unknown as Logger;
}

type LogMethod = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

class LazyChild {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly childBindings: pino.Bindings,
  ) {}

  private get real(): Logger {
    return (this.made ??= this.parent.child(this.childBindings));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.made ? this.made.isLevelEnabled(level) : this.parent.isLevelEnabled(level);
  }

  bindings(): pino.Bindings {
    return this.made ? this.made.bindings() : { ...this.parent.bindings(), ...this.childBindings };
  }

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.real.child(bindings, options);
  }

  trace(...args: Parameters<Logger['trace']>): void {
    this.write('trace', args);
  }
  debug(...args: Parameters<Logger['debug']>): void {
    this.write('debug', args);
  }
  info(...args: Parameters<Logger['info']>): void {
    this.write('info', args);
  }
  warn(...args: Parameters<Logger['warn']>): void {
    this.write('warn', args);
  }
  error(...args: Parameters<Logger['error']>): void {
    this.write('error', args);
  }
  fatal(...args: Parameters<Logger['fatal']>): void {
    this.write('fatal', args);
  }
  silent(): void {}

  private write(level: LogMethod, args: Parameters<Logger['info']>): void {
    // A line below the level is dropped without making the child.
    if (!this.made && !this.isLevelEnabled(level)) return;
    (this.real[level] as (...a: unknown[]) => void)(...args);
  }
}
