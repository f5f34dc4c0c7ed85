import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * Table types. Booleans are stored as integers 0/1 and dates as text in PocketBase's format,
 * so that one set of migrations and queries works on SQLite and PostgreSQL alike
 * (docs/decisions/0002-one-schema-two-databases.md).
 */
export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  token_key: string;
  verified: number;
  email_visibility: number;
  is_initial_user: number;
  /** 1: may use the operator console (the initial user always may). */
  is_operator: Generated<number>;
  /** 1: an operator disabled the account: no sign-in, no sessions, its codes do not work. */
  disabled: Generated<number>;
  invite_code: string;
  invited_by: string | null;
  verification_sent_at: string | null;
  reset_sent_at: string | null;
  created: string;
  updated: string;
}

export interface InviteCodesTable {
  id: string;
  /** Normalised: upper-case Crockford base32, no separators. */
  code: string;
  owner_id: string | null;
  bootstrap: number;
  used_by: string | null;
  used_at: string | null;
  created: string;
}

export interface OutboxTable {
  id: string;
  user_id: string | null;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  attempts: Generated<number>;
  next_attempt_at: string;
  locked_until: string | null;
  last_error: string | null;
  created: string;
}

/** A signed-in device: every auth token names one (`sid`); ending the row ends the token. */
export interface SessionsTable {
  id: string;
  user_id: string;
  created: string;
  last_seen: string;
  /** The absolute end: SESSION_MAX_DAYS after sign-in, however active the session is. */
  expires: string;
  ip: string;
  user_agent: string;
}

/** What happened to whose account, from where: the member's activity and the operator's log. */
export interface SecurityEventsTable {
  id: string;
  created: string;
  type: string;
  /** Kept after the account is deleted (no foreign key), until retention removes the row. */
  user_id: string | null;
  ip: string;
  user_agent: string;
  outcome: 'success' | 'failure';
  /** Small JSON object, never a secret. */
  detail: string;
}

/** One row per delivery attempt of the mail worker, for the console's 24-hour counts. */
export interface MailLogTable {
  id: string;
  created: string;
  outcome: 'sent' | 'failed';
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface Database {
  users: UsersTable;
  invite_codes: InviteCodesTable;
  outbox: OutboxTable;
  settings: SettingsTable;
  sessions: SessionsTable;
  security_events: SecurityEventsTable;
  mail_log: MailLogTable;
}

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type InviteCode = Selectable<InviteCodesTable>;
export type OutboxMail = Selectable<OutboxTable>;
export type Session = Selectable<SessionsTable>;
export type SecurityEvent = Selectable<SecurityEventsTable>;
