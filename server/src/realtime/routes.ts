import { createHash } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../core/context.js';
import type { Events, OAuth2Event } from '../core/events.js';
import { ForbiddenError, type FieldError, ValidationError } from '../core/errors.js';
import { requestAuth } from '../http/auth.js';
import { HttpError } from '../http/envelope.js';
import { Broker, type BrokerOptions, RealtimeClient } from './broker.js';

/**
 * PocketBase's realtime API (apis/realtime.go) and OAuth2 redirect target
 * (apis/record_auth_with_oauth2_redirect.go), so the SDK's `pb.realtime`, `collection.subscribe`
 * and the all-in-one `authWithOAuth2` work unchanged:
 *
 * - `GET /api/realtime`: a Server-Sent Events stream; its first message is `PB_CONNECT` with
 *   `{"clientId"}` (also the message `id`, which the SDK reads). 429 past the network's limit of
 *   open streams (realtime/limits.ts).
 * - `POST /api/realtime` `{clientId, subscriptions}`: replaces the client's topics; the request's
 *   token decides whose records it receives (a member only ever gets their own). 429 when it would
 *   bind a stream to a member who holds their limit of streams: the refusal lands on this request,
 *   not on the stream, because the SDK rejects a failed subscription and closes its stream, while
 *   a stream the server ends is one it reconnects (every 2 s, for ever) as after a network fault.
 * - `GET|POST /api/oauth2-redirect`: forwards `{state, code, error}` to the client whose id is
 *   `state` (topic `@oauth2`), on whichever instance it is connected to.
 */

/** PocketBase's bounds on a subscription request. */
const MAX_CLIENT_ID = 255;
const MAX_SUBSCRIPTIONS = 1000;
const MAX_TOPIC_LENGTH = 2500;

const lengthTooLong = (max: number): FieldError => ({
  code: 'validation_length_too_long',
  message: `The length must be no more than ${max}.`,
  params: { max },
});

const SUCCESS_TEXT = 'Auth completed. You can close this window and go back to the app.';
const FAILURE_TEXT =
  'Failed to authenticate. You can close this window and go back to the app to try again.';
const CLOSE_SCRIPT = 'window.close();';
const CLOSE_SCRIPT_HASH = createHash('sha256').update(CLOSE_SCRIPT).digest('base64');

export interface RealtimeFeature {
  plugin: (app: FastifyInstance) => Promise<void>;
  broker: Broker;
}

export function realtimeRoutes(ctx: AppContext, options: BrokerOptions = {}): RealtimeFeature {
  const broker = new Broker(ctx, options);
  const plugin = async (app: FastifyInstance) => {
    // Open streams would keep the server from closing: they end first, and clients reconnect.
    app.addHook('preClose', (done) => {
      broker.closeAll();
      done();
    });

    app.get('/api/realtime', (request, reply) => {
      const client = new RealtimeClient(request.ip, reply.raw);
      // Past its network's limit: a 429 in the envelope instead of a stream.
      broker.register(client);
      reply.hijack();
      reply.raw.writeHead(200, {
        ...(reply.getHeaders() as OutgoingHttpHeaders),
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        // nginx passes the stream through instead of buffering it.
        'x-accel-buffering': 'no',
      });
      reply.raw.on('close', () => broker.unregister(client));
      // Gone before this handler ran (its 'close' came and went): its slot is given back now.
      if (reply.raw.destroyed || request.raw.socket.destroyed) broker.unregister(client);
      broker.send(client, 'PB_CONNECT', JSON.stringify({ clientId: client.id }));
    });

    app.post('/api/realtime', async (request, reply) => {
      const { clientId, subscriptions } = readSubscribeBody(request.body);
      const client = broker.get(clientId);
      if (!client) throw new HttpError(404, 'Missing or invalid client id.');
      // An extra precaution against guessed client ids (PocketBase's).
      if (client.ip !== request.ip) throw new HttpError(400, 'Invalid realtime client.');
      const auth = await requestAuth(ctx, request);
      // Only a guest → member upgrade; any other change of auth is refused.
      if (client.auth && client.auth.userId !== auth?.user.id) {
        throw new ForbiddenError("The current and the previous request authorization don't match.");
      }
      if (client.closed) throw new HttpError(404, 'Missing or invalid client id.');
      broker.subscribe(
        client,
        auth ? { userId: auth.user.id, sessionId: auth.session.id } : null,
        subscriptions,
      );
      return reply.code(204).send();
    });

    // Providers that answer with `response_mode=form_post` send a form, not JSON.
    app.register(async (redirect) => {
      redirect.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: 16 * 1024 },
        (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
      );
      const handle = async (data: Record<string, unknown>, ip: string, reply: FastifyReply) => {
        const text = (key: string) => (typeof data[key] === 'string' ? (data[key] as string) : '');
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
      redirect.get<{ Querystring: Record<string, unknown> }>(
        '/api/oauth2-redirect',
        (request, reply) => handle(request.query, request.ip, reply),
      );
      redirect.post('/api/oauth2-redirect', (request, reply) => {
        const body = request.body;
        const data =
          typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
        return handle(data, request.ip, reply);
      });
    });
  };
  return { plugin, broker };
}

/** How long the redirect waits to hear that an instance handed its code to the client. */
const DELIVERY_WAIT_MS = 3000;

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

/** PocketBase's form: a JSON object; clientId 1–255 characters; at most 1000 topics of 2500. */
function readSubscribeBody(body: unknown): { clientId: string; subscriptions: string[] } {
  if (body === undefined || body === null) body = {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400);
  const { clientId = '', subscriptions = [] } = body as Record<string, unknown>;
  if (
    (clientId !== null && typeof clientId !== 'string') ||
    (subscriptions !== null &&
      (!Array.isArray(subscriptions) || subscriptions.some((s) => typeof s !== 'string')))
  ) {
    throw new HttpError(400);
  }
  const id = clientId ?? '';
  const topics = (subscriptions ?? []) as string[];
  const errors: Record<string, unknown> = {};
  if (id === '') errors.clientId = { code: 'validation_required', message: 'Cannot be blank.' };
  else if (id.length > MAX_CLIENT_ID) {
    errors.clientId = {
      code: 'validation_length_out_of_range',
      message: `The length must be between 1 and ${MAX_CLIENT_ID}.`,
      params: { min: 1, max: MAX_CLIENT_ID },
    };
  }
  if (topics.length > MAX_SUBSCRIPTIONS) errors.subscriptions = lengthTooLong(MAX_SUBSCRIPTIONS);
  else {
    const each: Record<string, FieldError> = {};
    topics.forEach((t, i) => {
      if (t.length > MAX_TOPIC_LENGTH) each[String(i)] = lengthTooLong(MAX_TOPIC_LENGTH);
    });
    if (Object.keys(each).length > 0) errors.subscriptions = each;
  }
  if (Object.keys(errors).length > 0) {
    // PocketBase's answer for its form's rules: the default 400 message, one error per field
    // (per topic for the topics' lengths).
    throw new ValidationError(
      'Something went wrong while processing your request.',
      errors as Record<string, FieldError>,
    );
  }
  return { clientId: id, subscriptions: topics };
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
