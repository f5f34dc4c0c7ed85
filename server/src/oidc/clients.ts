import type { Kysely } from 'kysely';
import type { AdapterPayload } from 'oidc-provider';
import { NotFoundError, ValidationError, type FieldErrors } from '../core/errors.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Database, OidcClientsTable } from '../db/schema.js';
import { randomString, newSecret } from '../tools/random.js';
import { nowString } from '../tools/time.js';

/**
 * The apps operators register (console and CLI): who they are, where the provider may send
 * members back to (exact addresses), whether they hold a secret, and which group may use them.
 * The secret is shown once, when the app is added or given a new one; it is kept sealed
 * (core/secret-box.ts), bound to the app's id, because the provider must compare it.
 */

type Db = Kysely<Database>;

export type AppGroup = 'members' | 'operators';
export type AppAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/** An app as operators see it (never its secret). */
export interface App {
  id: string;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  backchannelLogoutUri: string;
  /** confidential: it has a secret; public: PKCE only. */
  type: 'confidential' | 'public';
  authMethod: AppAuthMethod;
  group: AppGroup;
  created: string;
  updated: string;
}

export interface AppInput {
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  backchannelLogoutUri?: string;
  type: string;
  /** Confidential apps: how the app sends its secret (client_secret_post unless said). */
  authMethod?: string;
  group: string;
}

const NAME_MAX = 100;
const URIS_MAX = 10;
const URI_MAX = 2000;
const CLIENT_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export const APP_INVALID = 'The app could not be saved: check the fields.';

function appOf(row: OidcClientsTable): App {
  return {
    id: row.id,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    postLogoutRedirectUris: JSON.parse(row.post_logout_redirect_uris) as string[],
    backchannelLogoutUri: row.backchannel_logout_uri ?? '',
    type: row.auth_method === 'none' ? 'public' : 'confidential',
    authMethod: row.auth_method as AppAuthMethod,
    group: row.allowed_group === 'operators' ? 'operators' : 'members',
    created: row.created,
    updated: row.updated,
  };
}

/** Every registered app, by name. */
export async function listApps(db: Db): Promise<App[]> {
  const rows = await db
    .selectFrom('oidc_clients')
    .selectAll()
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map(appOf);
}

export async function findApp(db: Db, id: string): Promise<App | undefined> {
  const row = await db
    .selectFrom('oidc_clients')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row && appOf(row);
}

/** An address an app may name: absolute http(s), no fragment; http only on this machine. */
function uriProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Must be a full address (https://…).';
  }
  if (value.length > URI_MAX) return `Must be no more than ${URI_MAX} character(s).`;
  if (url.hash) return 'Must not have a #fragment.';
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && loopback) return undefined;
  // Native apps' private-use schemes (com.example.app:/callback) are for public clients.
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol)) return undefined;
  return 'Must start with https:// (http:// only for this machine).';
}

function checkUris(
  errors: FieldErrors,
  field: string,
  values: unknown,
  { required }: { required: boolean },
): string[] {
  const list = Array.isArray(values) ? values.map((v) => String(v).trim()).filter(Boolean) : [];
  if (required && list.length === 0) {
    errors[field] = { code: 'validation_required', message: 'Cannot be blank.' };
  } else if (list.length > URIS_MAX) {
    errors[field] = { code: 'validation_too_many', message: `At most ${URIS_MAX} addresses.` };
  } else {
    const bad = list.map(uriProblem).find(Boolean);
    if (bad) errors[field] = { code: 'validation_invalid_url', message: bad };
  }
  return [...new Set(list)];
}

function readInput(input: AppInput) {
  const errors: FieldErrors = {};
  const name = (input.name ?? '').trim();
  if (!name) errors.name = { code: 'validation_required', message: 'Cannot be blank.' };
  else if (name.length > NAME_MAX) {
    errors.name = {
      code: 'validation_max_text_constraint',
      message: `Must be no more than ${NAME_MAX} character(s).`,
      params: { max: NAME_MAX },
    };
  }
  const redirectUris = checkUris(errors, 'redirectUris', input.redirectUris, { required: true });
  const postLogoutRedirectUris = checkUris(
    errors,
    'postLogoutRedirectUris',
    input.postLogoutRedirectUris ?? [],
    { required: false },
  );
  const backchannel = (input.backchannelLogoutUri ?? '').trim();
  if (backchannel) {
    const bad = uriProblem(backchannel);
    if (bad) errors.backchannelLogoutUri = { code: 'validation_invalid_url', message: bad };
  }
  if (input.type !== 'confidential' && input.type !== 'public') {
    errors.type = { code: 'validation_invalid_value', message: 'Must be confidential or public.' };
  }
  const method = input.authMethod || 'client_secret_post';
  if (
    input.type === 'confidential' &&
    method !== 'client_secret_post' &&
    method !== 'client_secret_basic'
  ) {
    errors.authMethod = {
      code: 'validation_invalid_value',
      message: 'Must be client_secret_post or client_secret_basic.',
    };
  }
  if (input.group !== 'members' && input.group !== 'operators') {
    errors.group = { code: 'validation_invalid_value', message: 'Must be members or operators.' };
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(APP_INVALID, errors);
  return {
    name,
    redirect_uris: JSON.stringify(redirectUris),
    post_logout_redirect_uris: JSON.stringify(postLogoutRedirectUris),
    backchannel_logout_uri: backchannel || null,
    auth_method: input.type === 'public' ? 'none' : method,
    allowed_group: input.group,
  };
}

function newClientSecret(box: SecretBox, id: string): { secret: string; sealed: string } {
  const secret = newSecret();
  return { secret, sealed: box.seal(secret, `oidc-client:${id}`) };
}

/** Registers an app; the answer holds its secret (confidential apps), shown this once. */
export async function addApp(
  db: Db,
  box: SecretBox,
  input: AppInput,
): Promise<{ app: App; secret: string }> {
  const fields = readInput(input);
  const id = randomString(24, CLIENT_ID_ALPHABET);
  const made = fields.auth_method === 'none' ? undefined : newClientSecret(box, id);
  const now = nowString();
  await db
    .insertInto('oidc_clients')
    .values({ id, ...fields, secret: made?.sealed ?? null, created: now, updated: now })
    .execute();
  return { app: (await findApp(db, id))!, secret: made?.secret ?? '' };
}

/** Changes an app's settings; a public app turned confidential gets a secret (shown once). */
export async function updateApp(
  db: Db,
  box: SecretBox,
  id: string,
  input: AppInput,
): Promise<{ app: App; secret: string }> {
  const row = await db
    .selectFrom('oidc_clients')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new NotFoundError();
  const fields = readInput(input);
  let made: { secret: string; sealed: string } | undefined;
  let secret = row.secret;
  if (fields.auth_method === 'none') secret = null;
  else if (!secret) {
    made = newClientSecret(box, id);
    secret = made.sealed;
  }
  await db
    .updateTable('oidc_clients')
    .set({ ...fields, secret, updated: nowString() })
    .where('id', '=', id)
    .execute();
  return { app: (await findApp(db, id))!, secret: made?.secret ?? '' };
}

/** A new secret for a confidential app (the old one stops working at once), shown once. */
export async function newAppSecret(db: Db, box: SecretBox, id: string): Promise<string> {
  const row = await db
    .selectFrom('oidc_clients')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row || row.auth_method === 'none') throw new NotFoundError();
  const made = newClientSecret(box, id);
  await db
    .updateTable('oidc_clients')
    .set({ secret: made.sealed, updated: nowString() })
    .where('id', '=', id)
    .execute();
  return made.secret;
}

/**
 * Removes an app: what members agreed to share with it goes (by cascade), and so does everything
 * the provider issued to it (codes, tokens, grants): it can no longer act for anyone.
 */
export async function removeApp(db: Db, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const result = await trx.deleteFrom('oidc_clients').where('id', '=', id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new NotFoundError();
    await trx.deleteFrom('oidc_records').where('client_id', '=', id).execute();
  });
}

/** The app as oidc-provider reads a client (its Adapter's `find` for the Client model). */
export async function clientMetadata(
  db: Db,
  box: SecretBox,
  id: string,
): Promise<AdapterPayload | undefined> {
  const row = await db
    .selectFrom('oidc_clients')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const secret = row.secret ? box.open(row.secret, `oidc-client:${id}`) : undefined;
  // A confidential app whose secret this server cannot open (another TOKEN_SECRET): refused.
  if (row.auth_method !== 'none' && !secret) return undefined;
  return {
    client_id: row.id,
    client_name: row.name,
    ...(secret ? { client_secret: secret } : {}),
    redirect_uris: JSON.parse(row.redirect_uris) as string[],
    post_logout_redirect_uris: JSON.parse(row.post_logout_redirect_uris) as string[],
    ...(row.backchannel_logout_uri
      ? {
          backchannel_logout_uri: row.backchannel_logout_uri,
          backchannel_logout_session_required: true,
        }
      : {}),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: row.auth_method,
  };
}
