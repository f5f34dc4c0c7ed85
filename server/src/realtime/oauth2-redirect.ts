import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as C from '../../../contract/realtime.js';
import type { AppContext } from '../core/context.js';
import type { Events, OAuth2Event } from '../core/events.js';
import type { Broker } from './broker.js';

/**
 * PocketBase's OAuth2 redirect target (apis/record_auth_with_oauth2_redirect.go), for the SDK's
 * all-in-one `authWithOAuth2`: `GET|POST /api/oauth2-redirect` forwards `{state, code, error}` to
 * the realtime client whose id is `state` (topic `@oauth2`), on whichever instance it is connected
 * to, and answers the provider's popup with a page.
 */

const SUCCESS_TEXT = 'Auth completed. You can close this window and go back to the app.';
const FAILURE_TEXT =
  'Failed to authenticate. You can close this window and go back to the app to try again.';
const CLOSE_SCRIPT = 'window.close();';
const CLOSE_SCRIPT_HASH = createHash('sha256').update(CLOSE_SCRIPT).digest('base64');

/** How long the redirect waits to hear that an instance handed its code to the client. */
const DELIVERY_WAIT_MS = 3000;

/**
 * The redirect's routes, for realtime/routes.ts to register beside the stream it delivers to.
 * The popup always gets a page: a field of another type, or a body that is not an object, reads
 * as unset (the failure page), never a JSON error, so the schemas' checks are not enforced here
 * (`attachValidation`); they describe what a provider sends.
 */
export function oauth2RedirectRoutes(ctx: AppContext, broker: Broker) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    // Providers that answer with `response_mode=form_post` send a form, not JSON.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 16 * 1024 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    const handle = async (data: unknown, ip: string, reply: FastifyReply) => {
      const fields =
        typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
      const text = (key: string) =>
        typeof fields[key] === 'string' ? (fields[key] as string) : '';
      const state = text('state');
      const code = text('code');
      const error = text('error');
      if (state === '') return redirectPage(reply, false);
      const event: OAuth2Event = {
        type: 'oauth2',
        clientId: state,
        ip,
        payload: { state, code, ...(error ? { error } : {}) },
      };
      return redirectPage(reply, (await delivered(event)) && error === '' && code !== '');
    };
    /**
     * Whether the client took the redirect: this instance's own at once (the broker's rule:
     * subscribed to `@oauth2`, from the same address); alone, this instance knows every client;
     * with others, through the channel, once the one holding the client says so. No word from
     * any: no client of ours had it (PocketBase's failure page).
     */
    const delivered = async (event: OAuth2Event): Promise<boolean> => {
      if (broker.get(event.clientId)) return broker.deliverOAuth2(event);
      if (!ctx.events.shared) return false;
      const heard = deliveryHeard(ctx.events, event.clientId);
      ctx.events.publish(event);
      return heard;
    };
    api.get(
      '/api/oauth2-redirect',
      { schema: C.oauth2RedirectGet, attachValidation: true },
      (request, reply) => handle(request.query, request.ip, reply),
    );
    api.post(
      '/api/oauth2-redirect',
      { schema: C.oauth2RedirectPost, attachValidation: true },
      (request, reply) => handle(request.body, request.ip, reply),
    );
  };
}

/** True once an instance says it gave the OAuth2 redirect to `clientId`; false after the wait. */
function deliveryHeard(events: Events, clientId: string): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (heard: boolean) => {
      clearTimeout(timer);
      unsubscribe();
      resolve(heard);
    };
    const timer = setTimeout(() => finish(false), DELIVERY_WAIT_MS);
    const unsubscribe = events.subscribe((event) => {
      if (event.type === 'oauth2-delivered' && event.clientId === clientId) finish(true);
    });
  });
}

/**
 * The page the provider's popup lands on (PocketBase's texts when it has no admin UI). On success
 * it closes itself (the app has the code over realtime and closes it too); a failure stays open
 * to be read.
 */
function redirectPage(reply: FastifyReply, success: boolean) {
  const text = success ? SUCCESS_TEXT : FAILURE_TEXT;
  // No opener policy here: the popup came from the provider's site, and a policy would move it
  // into a new browsing context group, cutting it from the app that opened it (which then cannot
  // close it, nor can it close itself after the provider's own pages).
  reply.removeHeader('cross-origin-opener-policy');
  return reply
    .code(200)
    .header('content-type', 'text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'sha256-${CLOSE_SCRIPT_HASH}'; frame-ancestors 'none'`,
    )
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${success ? 'Signed in' : 'Sign-in failed'}</title>` +
        `<meta name="viewport" content="width=device-width, initial-scale=1"></head>` +
        `<body><p>${text}</p>${success ? `<script>${CLOSE_SCRIPT}</script>` : ''}</body></html>`,
    );
}
