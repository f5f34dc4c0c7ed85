import { queryOptions } from '@tanstack/react-query';
import type { App, AppSavedAnswer, AppsAnswer } from '../../../../contract/oidc';
import { pb } from '../../lib/pb';
import { adminKeys } from './api';

/**
 * The console's Apps screen: the apps that sign members in with Gatehouse (docs/api.md, "Gatehouse
 * as an OpenID provider"), operators only. Registering, changing, a new secret and removing need
 * a fresh session: the requests get the "Confirm it's you" dialog by themselves (lib/pb.ts).
 */

// The answers' types are the server's schemas (contract/oidc.ts).
export type { App, AppSavedAnswer, AppsAnswer };

/**
 * What the app's form sends. `authMethod` only for a confidential app whose method is kept (one the
 * CLI set to client_secret_basic, edited here); without it the server uses client_secret_post.
 */
export interface AppFields {
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  backchannelLogoutUri: string;
  type: 'confidential' | 'public';
  authMethod?: string;
  group: 'members' | 'operators';
}

/** The form's fields the server may refuse, in the form's order (the first one takes focus). */
export const APP_FIELDS = [
  'name',
  'redirectUris',
  'postLogoutRedirectUris',
  'backchannelLogoutUri',
  'type',
  'group',
] as const;
export type AppField = (typeof APP_FIELDS)[number];

export const appsKeys = {
  apps: (viewer: string) => [...adminKeys.of(viewer), 'apps'] as const,
};

export const appsQueryOptions = (viewer: string) =>
  queryOptions({
    queryKey: appsKeys.apps(viewer),
    queryFn: () => pb.send<AppsAnswer>('/api/admin/apps', {}),
  });

const appPath = (id: string) => `/api/admin/apps/${encodeURIComponent(id)}`;

/** Registers an app; the answer holds its secret (a confidential app's), shown this once. */
export function registerApp(fields: AppFields): Promise<AppSavedAnswer> {
  return pb.send<AppSavedAnswer>('/api/admin/apps', { method: 'POST', body: fields });
}

/** Removes an app: everything it was given ends, and it can sign no one in any more. */
export async function removeApp(id: string): Promise<void> {
  await pb.send(appPath(id), { method: 'DELETE' });
}

/** Addresses typed one a line: trimmed, blank lines left out. */
export function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/** Changes an app's settings (the same checks); a public app made confidential gets a secret. */
export function updateApp(id: string, fields: AppFields): Promise<AppSavedAnswer> {
  return pb.send<AppSavedAnswer>(appPath(id), { method: 'PATCH', body: fields });
}

/** A new secret for a confidential app, shown this once; the old one stops working at once. */
export async function newAppSecret(id: string): Promise<string> {
  const answer = await pb.send<{ secret: string }>(`${appPath(id)}/secret`, { method: 'POST' });
  return answer.secret;
}
