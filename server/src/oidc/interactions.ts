import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import type { InteractionAnswer } from '../../../contract/oidc.js';
import type { AppContext } from '../core/context.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';
import { sessionEnd } from '../core/sessions.js';
import { isOperator, type Auth } from '../core/users.js';
import type { User } from '../db/schema.js';
import { nowString } from '../tools/time.js';
import type { OidcProvider } from './provider.js';

/**
 * The steps the provider hands to Gatehouse's screens (docs/decisions/0060): a sign-in (any way in,
 * on the web app's screens; nothing here makes an account) and the consent screen. The provider
 * set a signed cookie for /api/oidc/interactions/{uid} when it sent the browser there: each call
 * reads the interaction through it, so only the browser that started the sign-in completes it.
 */

interface Step {
  provider: Provider;
  interaction: Interaction;
  app: { id: string; name: string; group: 'members' | 'operators' };
}

/** The interaction `uid` of this browser, with its app; 404 when expired, unknown or not its own. */
export async function stepOf(
  ctx: AppContext,
  oidc: OidcProvider,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
): Promise<Step> {
  const provider = await oidc.provider();
  let interaction: Interaction;
  try {
    interaction = await provider.interactionDetails(request.raw, reply.raw);
  } catch {
    throw new NotFoundError();
  }
  if (interaction.uid !== uid) throw new NotFoundError();
  const clientId = String(interaction.params.client_id ?? '');
  const row = await ctx.db
    .selectFrom('oidc_clients')
    .select(['id', 'name', 'allowed_group'])
    .where('id', '=', clientId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError();
  const group = row.allowed_group === 'operators' ? 'operators' : 'members';
  return { provider, interaction, app: { id: row.id, name: row.name, group } };
}

function allowed(user: User | undefined, group: 'members' | 'operators'): boolean {
  return !user || group === 'members' || isOperator(user);
}

function forbiddenFor(app: Step['app']): ForbiddenError {
  return new ForbiddenError(`${app.name} is for operators only.`);
}

export function describe(step: Step, user: User | undefined): InteractionAnswer {
  const { interaction, app } = step;
  const scope = String(interaction.params.scope ?? '');
  return {
    uid: interaction.uid,
    prompt: interaction.prompt.name === 'login' ? 'login' : 'consent',
    app: { id: app.id, name: app.name },
    scopes: scope.split(' ').filter(Boolean),
    group: app.group,
    allowed: allowed(user, app.group),
  };
}

/**
 * The sign-in completed by the signed-in member: the provider's session is opened for them and
 * tied to their Gatehouse session (provider.ts links it, sessions.ts ends it with it).
 */
export async function completeLogin(
  step: Step,
  auth: Auth,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<string> {
  if (!allowed(auth.user, step.app.group)) throw forbiddenFor(step.app);
  const signedInAt = Date.parse(
    `${(auth.session.confirmed_at ?? auth.session.created).replace(' ', 'T')}`,
  );
  return step.provider.interactionResult(
    request.raw,
    reply.raw,
    {
      login: { accountId: auth.user.id, ts: Math.floor(signedInAt / 1000) },
      gatehouse: { sessionId: auth.session.id, expiresAt: sessionEnd(auth.session) },
    },
    { mergeWithLastSubmission: false },
  );
}

/** The member shares what the app asks for; remembered until revoked in Connected Apps. */
export async function giveConsent(
  ctx: AppContext,
  step: Step,
  auth: Auth,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<string> {
  const { provider, interaction, app } = step;
  if (!allowed(auth.user, app.group)) throw forbiddenFor(app);
  if (interaction.prompt.name !== 'consent') throw new NotFoundError();
  if (interaction.session?.accountId !== auth.user.id) {
    throw new ForbiddenError(
      'This sign-in was started by another member. Go back to the app and try again.',
    );
  }
  const details = interaction.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
  };
  const grant =
    (interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined) ??
    new provider.Grant({ accountId: auth.user.id, clientId: app.id });
  if (details.missingOIDCScope?.length) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims?.length) grant.addOIDCClaims(details.missingOIDCClaims);
  const grantId = await grant.save();
  const scope = grant.getOIDCScope();
  const now = nowString();
  await ctx.db
    .insertInto('oidc_consents')
    .values({ user_id: auth.user.id, client_id: app.id, scope, created: now, last_used: now })
    .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet({ scope, last_used: now }))
    .execute();
  return provider.interactionResult(request.raw, reply.raw, { consent: { grantId } });
}

/** Back to the app without signing in: it gets `access_denied`. */
export function abort(step: Step, request: FastifyRequest, reply: FastifyReply): Promise<string> {
  return step.provider.interactionResult(
    request.raw,
    reply.raw,
    { error: 'access_denied', error_description: 'The member did not sign in to the app.' },
    { mergeWithLastSubmission: false },
  );
}
