import { pino, type Logger } from 'pino';

/** Pino with secrets redacted wherever they could appear in a logged object. */
export function createLogger(level: string): Logger {
  return pino({
    level,
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
  });
}
