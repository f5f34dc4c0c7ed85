import type { Writable } from 'node:stream';
import type { Config } from '../config.js';
import { SecretBox } from '../core/secret-box.js';
import { loadSigningSecret, tokenSecrets } from '../core/tokens.js';
import { openDatabase } from '../db/connect.js';
import { migrateToLatest } from '../db/migrations/index.js';
import { addApp, listApps, removeApp, type AppInput } from './clients.js';
import { ACTIVATION_DELAY_MS, ensureSigningKey, rotateKeys } from './keys.js';

/**
 * `npm run --silent cli -- oidc …`: the apps that sign their members in with Gatehouse, and the
 * provider's signing keys (docs/decisions/0060, 0062), on the database of DATA_DIR / DATABASE_URL.
 */

export const OIDC_USAGE = `  oidc add-app --name NAME --redirect-uri URI [--redirect-uri URI …]
               [--post-logout-redirect-uri URI …] [--backchannel-logout-uri URI]
               [--public] [--operators] [--secret-basic]
                                 Register an app; prints its client id and (unless --public) its
                                 secret, shown this once. --operators: for operators only.
  oidc list-apps                 One line per app: client id, name, type, group, redirect URIs.
  oidc remove-app CLIENT_ID      Remove an app: what it was given ends.
  oidc rotate-keys               A new signing key: published now, signing in two minutes; the old
                                 ones stay published until the tokens they signed expire.
`;

export class OidcUsageError extends Error {}

export interface OidcRequest {
  action: 'add-app' | 'list-apps' | 'remove-app' | 'rotate-keys';
  input?: AppInput;
  clientId?: string;
}

export function readOidcArgs(args: string[]): OidcRequest {
  const [action, ...rest] = args;
  if (action === 'list-apps' || action === 'rotate-keys') {
    if (rest.length) throw new OidcUsageError(`Usage: oidc ${action}`);
    return { action };
  }
  if (action === 'remove-app') {
    if (rest.length !== 1) throw new OidcUsageError('Usage: oidc remove-app CLIENT_ID');
    return { action, clientId: rest[0]! };
  }
  if (action !== 'add-app') {
    throw new OidcUsageError(
      action ? `Unknown oidc command "${action}".` : 'Missing oidc command.',
    );
  }
  const input: Required<AppInput> = {
    name: '',
    redirectUris: [],
    postLogoutRedirectUris: [],
    backchannelLogoutUri: '',
    type: 'confidential',
    authMethod: 'client_secret_post',
    group: 'members',
  };
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    const value = () => {
      const v = rest[++i];
      if (v === undefined) throw new OidcUsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === '--name') input.name = value();
    else if (flag === '--redirect-uri') input.redirectUris.push(value());
    else if (flag === '--post-logout-redirect-uri') input.postLogoutRedirectUris.push(value());
    else if (flag === '--backchannel-logout-uri') input.backchannelLogoutUri = value();
    else if (flag === '--public') input.type = 'public';
    else if (flag === '--operators') input.group = 'operators';
    else if (flag === '--secret-basic') input.authMethod = 'client_secret_basic';
    else throw new OidcUsageError(`Unknown option "${flag}".`);
  }
  return { action, input };
}

export async function oidcCommand(config: Config, request: OidcRequest, out: Writable) {
  const box = SecretBox.fromSecrets(tokenSecrets(loadSigningSecret(config)));
  const database = openDatabase(config);
  const { db } = database;
  try {
    await migrateToLatest(db);
    if (request.action === 'list-apps') {
      for (const app of await listApps(db)) {
        out.write(
          `${app.id}\t${app.name}\t${app.type}\t${app.group}\t${app.redirectUris.join(' ')}\n`,
        );
      }
    } else if (request.action === 'add-app') {
      const { app, secret } = await addApp(db, box, request.input!);
      out.write(`Client ID: ${app.id}\n`);
      if (secret) out.write(`Client secret (shown once): ${secret}\n`);
      out.write(`Issuer: ${config.appUrl}/oidc\n`);
    } else if (request.action === 'remove-app') {
      await removeApp(db, request.clientId!);
      out.write(`Removed ${request.clientId}\n`);
    } else {
      await ensureSigningKey(db, box);
      const kid = await rotateKeys(db, box);
      out.write(
        `New signing key ${kid}: published now, signing in ${ACTIVATION_DELAY_MS / 60_000} minutes.\n`,
      );
    }
  } finally {
    await database.close();
  }
}
