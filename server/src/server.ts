import type { Config } from './config.js';

/** A started Gatehouse server: HTTP listening, migrations run, mail worker running. */
export interface RunningServer {
  /** Base URL it listens on, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** The bootstrap sign-up link when this start created the first invite code, else null. */
  bootstrapLink: string | null;
  /** Stops accepting, finishes in-flight requests, stops the mail worker, closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** false: no logs (tests). Default: pino at config.logLevel to stdout. */
  logger?: boolean;
}

export async function startServer(_config: Config, _options: StartOptions = {}): Promise<RunningServer> {
  throw new Error('not implemented yet');
}
