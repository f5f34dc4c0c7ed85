/** What the global setup hands to the test workers (through environment variables). */

export interface AppServer {
  /**
   * Base URL, also the server's APP_URL, e.g. http://127.0.0.1:41234 (no trailing slash; the
   * passkeys server's is http://localhost:…).
   */
  url: string;
  /** The sign-up link for the initial user that the server printed at start. */
  bootstrapLink: string;
  /** Set when the global setup already created the (verified) initial user through the API. */
  initial?: { email: string; password: string; id: string };
  /**
   * The server's DATA_DIR: its SQLite database is `gatehouse.db` there (a spec may write to it, as
   * another process would; the server notices other connections' commits).
   */
  dataDir: string;
  /**
   * Set for a server that mails through a receiver of its own on this port, which its spec
   * starts and stops (support/smtp.ts); otherwise the shared receiver takes its mail.
   */
  smtpPort?: number;
}

/** Each spec file that needs an untouched database gets a server of its own. */
export type ServerName =
  | 'journey'
  | 'screens'
  | 'settings'
  | 'admin'
  | 'providers'
  | 'passkeys'
  | 'polish'
  | 'reauth'
  | 'logs'
  | 'backups'
  | 'apps';

export interface E2EEnv {
  servers: Record<ServerName, AppServer>;
  /** Every captured mail is a JSON file (`CapturedMail`) in this folder. */
  mailDir: string;
}

export interface CapturedMail {
  /** Envelope recipients, lower-cased. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  receivedAt: number;
}

export const ENV_KEY = 'GATEHOUSE_E2E';

export function e2eEnv(): E2EEnv {
  const raw = process.env[ENV_KEY];
  if (!raw)
    throw new Error(`${ENV_KEY} is not set: run the suite through e2e/playwright.config.ts`);
  return JSON.parse(raw) as E2EEnv;
}
