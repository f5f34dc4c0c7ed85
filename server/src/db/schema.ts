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
  /** 0: an account made with a provider whose member never chose a password (a random one is hashed). */
  password_set: Generated<number>;
  verification_sent_at: string | null;
  reset_sent_at: string | null;
  created: string;
  updated: string;
  /** PocketBase's `name`: trimmed, at most 100 characters; '' when unset. */
  name: Generated<string>;
  /** PocketBase's `avatar`: the file's name (`name_random10.ext`), '' when none. */
  avatar: Generated<string>;
  /**
   * The language of the member's mail (docs/decisions/0072), one of core/language.ts's LANGUAGES;
   * 'en' for an account from before it.
   */
  language: Generated<'en' | 'de'>;
}

/**
 * Members' files on PostgreSQL (an avatar and the thumbs made of it), so every instance serves
 * them; on SQLite they live in DATA_DIR/files and this table is empty (db/member-files.ts).
 */
export interface MemberFilesTable {
  user_id: string;
  name: string;
  /** '' for the file itself; a thumb's size (`100x100`) for a thumb of it. */
  variant: string;
  data: Buffer;
  created: string;
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
  /** What the mail is (`verification`, `passwordReset`, `passwordChanged`); null on older rows. */
  kind: string | null;
  /** When the link in it dies (the token's exp): not sent after that. null: no expiring link. */
  expires_at: string | null;
  /** When the worker found it expired and gave up; such rows are never sent. */
  expired_at: string | null;
}

/** One row per "this email has an account" answer given at sign-up to a holder of a code. */
export interface TakenEmailAnswersTable {
  id: string;
  code_id: string;
  /** The code's owner (the inviter); null for the bootstrap code. */
  owner_id: string | null;
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
  /**
   * When the member last proved it is them on this session: its sign-in, or a "Confirm it's you"
   * (core/reauth.ts). Sensitive actions need it within REAUTH_MINUTES. null only on rows older
   * than the column that the migration has not reached (none after it ran).
   */
  confirmed_at: string | null;
  /**
   * An operator viewing the member's account (docs/decisions/0056): the operator's id. Such a
   * session is short, never renewed, never fresh, and not the member's sign-in. null for the
   * member's own sessions.
   */
  impersonated_by: string | null;
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

/** A member's authenticator app: its sealed seed, the last step used, the lock-out. */
export interface TwoStepTable {
  user_id: string;
  /** The seed in use (sealed, core/secret-box.ts); null while two-step is off. */
  secret: string | null;
  /** A seed set up but not yet confirmed with a code (sealed). */
  pending_secret: string | null;
  enabled: number;
  /** The last TOTP time step accepted: a code is never accepted twice. */
  last_step: number | null;
  /** Wrong codes in a row; the fifth locks the second step until `locked_until`. */
  failures: number;
  locked_until: string | null;
  updated: string;
}

/** Single-use recovery codes, stored as SHA-256 hashes. */
export interface RecoveryCodesTable {
  id: string;
  user_id: string;
  code_hash: string;
  used_at: string | null;
  created: string;
}

/** A right password waiting for its second step (`mfaId`): one sign-in, 10 minutes. */
export interface MfaChallengesTable {
  id: string;
  user_id: string;
  created: string;
  expires: string;
}

/** A member's WebAuthn credential (public key only). */
export interface PasskeysTable {
  id: string;
  user_id: string;
  /** base64url credential id, as the browser reports it. */
  credential_id: string;
  /** base64url COSE public key. */
  public_key: string;
  /** The signature counter last seen (bigint: PostgreSQL hands it back as a string). */
  counter: number | string;
  /** JSON array of transports ("internal", "hybrid", …). */
  transports: string;
  name: string;
  created: string;
  last_used: string | null;
}

/** A WebAuthn challenge handed out and not yet answered (registration or sign-in). */
export interface PasskeyChallengesTable {
  id: string;
  /** base64url, as it comes back in the response's clientDataJSON. */
  challenge: string;
  kind: 'registration' | 'authentication';
  /** The member registering; null for a sign-in (the passkey says who it is). */
  user_id: string | null;
  expires: string;
}

/** A provider identity (PocketBase's external auth) linked to a member: it signs them in. */
export interface ExternalAuthsTable {
  id: string;
  user_id: string;
  /** github, google, oidc. */
  provider: string;
  /** The member's id at the provider (`sub`, GitHub's numeric id). */
  provider_id: string;
  created: string;
}

/**
 * A sign-in code sent by email (PocketBase's OTP), while it is live: its `otpId` is the row's id.
 * Single-use (the row goes when the code is used), never stored in the clear.
 */
export interface EmailCodesTable {
  /** The `otpId` (15 characters, as PocketBase's). */
  id: string;
  user_id: string;
  /** The address the code was sent to: it only works while the account still has it. */
  email: string;
  /**
   * A keyed digest of the otpId and the code (core/secret-box.ts): a copy of the database cannot
   * check a guess.
   */
  code_hash: string;
  /** Attempts at this code so far, each counted before its code is checked. */
  attempts: Generated<number>;
  created: string;
  expires: string;
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

/**
 * Members per status as the console's list filters them (`verified`, `unverified`: not
 * disabled; `disabled`), kept by triggers on `users` (migration 0010): the list's total without
 * counting a million rows.
 */
export interface MemberCountsTable {
  status: 'verified' | 'unverified' | 'disabled';
  /** bigint: PostgreSQL returns it as a string. */
  n: number | string;
}

/**
 * The invite tree as the console shows it, kept by triggers on `users` (migration 0010): one row
 * per member; `parent_id` is the inviter, or the initial user when the inviter's account is gone
 * (null: no known inviter, as for the initial user).
 */
export interface InviteTreeTable {
  user_id: string;
  parent_id: string | null;
  /** The member's `created`, for ordering siblings from the index. */
  created: string;
  /** Direct invitees (under the initial user: also those whose inviter is gone). */
  children: number | string;
  /** Everyone in the branch below. */
  descendants: number | string;
}

/** An app that signs its members in with Gatehouse (OpenID Connect), registered by an operator. */
export interface OidcClientsTable {
  id: string;
  name: string;
  /** The client secret, sealed (core/secret-box.ts); null for a public client. */
  secret: string | null;
  /** JSON array of exact redirect URIs. */
  redirect_uris: string;
  /** JSON array of exact addresses to return to after signing out. */
  post_logout_redirect_uris: string;
  backchannel_logout_uri: string | null;
  /** client_secret_basic, client_secret_post, or none (public). */
  auth_method: string;
  /** Who may use it: `members` (everyone) or `operators`. */
  allowed_group: string;
  created: string;
  updated: string;
}

/** What a member agreed to share with an app (the consent screen's answer), until revoked. */
export interface OidcConsentsTable {
  user_id: string;
  client_id: string;
  /** Space-separated scopes. */
  scope: string;
  created: string;
  last_used: string;
}

/** oidc-provider's records (sessions, grants, codes, tokens, interactions) through its Adapter. */
export interface OidcRecordsTable {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  account_id: string | null;
  client_id: string | null;
  /** A provider session: the Gatehouse session it ends with. */
  session_id: string | null;
  /** Unix seconds (bigint: PostgreSQL hands it back as a string). */
  expires_at: number | string | null;
  consumed_at: number | string | null;
}

/** The provider's signing keys: private JWKs, sealed. */
export interface OidcKeysTable {
  kid: string;
  jwk: string;
  created: string;
  active_from: string;
  retired_at: string | null;
}

/** What the Members table sorts by beyond `users` (docs/decisions/0057), kept by triggers. */
export interface MemberSortTable {
  user_id: string;
  two_step: Generated<number>;
  last_sign_in: string | null;
  inviter_email: string | null;
}

export interface Database {
  users: UsersTable;
  member_counts: MemberCountsTable;
  member_sort: MemberSortTable;
  invite_tree: InviteTreeTable;
  invite_codes: InviteCodesTable;
  outbox: OutboxTable;
  settings: SettingsTable;
  sessions: SessionsTable;
  security_events: SecurityEventsTable;
  taken_email_answers: TakenEmailAnswersTable;
  two_step: TwoStepTable;
  recovery_codes: RecoveryCodesTable;
  mfa_challenges: MfaChallengesTable;
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
  mail_log: MailLogTable;
  external_auths: ExternalAuthsTable;
  email_codes: EmailCodesTable;
  member_files: MemberFilesTable;
  oidc_clients: OidcClientsTable;
  oidc_consents: OidcConsentsTable;
  oidc_records: OidcRecordsTable;
  oidc_keys: OidcKeysTable;
}

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type InviteCode = Selectable<InviteCodesTable>;
export type OutboxMail = Selectable<OutboxTable>;
export type Session = Selectable<SessionsTable>;
export type SecurityEvent = Selectable<SecurityEventsTable>;
export type TwoStep = Selectable<TwoStepTable>;
export type Passkey = Selectable<PasskeysTable>;
export type ExternalAuth = Selectable<ExternalAuthsTable>;
export type EmailCode = Selectable<EmailCodesTable>;
