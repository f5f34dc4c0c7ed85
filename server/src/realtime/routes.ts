import type { OutgoingHttpHeaders } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/realtime.js';
import type { AppContext } from '../core/context.js';
import { ForbiddenError, type FieldError, ValidationError } from '../core/errors.js';
import { requestAuth } from '../http/auth.js';
import { HttpError } from '../http/envelope.js';
import { Broker, type BrokerOptions, RealtimeClient } from './broker.js';
import { oauth2RedirectRoutes } from './oauth2-redirect.js';

/**
 * PocketBase's realtime API (apis/realtime.go), so the SDK's `pb.realtime` and
 * `collection.subscribe` work unchanged (schemas in contract/realtime.ts):
 *
 * - `GET /api/realtime`: a Server-Sent Events stream; its first message is `PB_CONNECT` with
 *   `{"clientId"}` (also the message `id`, which the SDK reads). 429 past the network's limit of
 *   open streams (realtime/limits.ts).
 * - `POST /api/realtime` `{clientId, subscriptions}`: replaces the client's topics; the request's
 *   token decides whose records it receives (a member only ever gets their own). 429 when it would
 *   bind a stream to a member who holds their limit of streams: the refusal lands on this request,
 *   not on the stream, because the SDK rejects a failed subscription and closes its stream, while
 *   a stream the server ends is one it reconnects (every 2 s, for ever) as after a network fault.
 *
 * The OAuth2 redirect target, which hands its code to one of these streams, is registered with
 * them (realtime/oauth2-redirect.ts).
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

export interface RealtimeFeature {
  plugin: (app: FastifyInstance) => Promise<void>;
  broker: Broker;
}

export function realtimeRoutes(ctx: AppContext, options: BrokerOptions = {}): RealtimeFeature {
  const broker = new Broker(ctx, options);
  const plugin = async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    // Open streams would keep the server from closing: they end first, and clients reconnect.
    app.addHook('preClose', (done) => {
      broker.closeAll();
      done();
    });

    // The stream is written to the socket itself (hijacked): the schema is the reference only.
    api.get('/api/realtime', { schema: C.connect }, (request, reply) => {
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

    // A body its schema does not read is PocketBase's default 400 here (its form's binding
    // error), not the loading message of other routes: the check is the handler's.
    api.post(
      '/api/realtime',
      { schema: C.subscribe, attachValidation: true },
      async (request, reply) => {
        if (request.validationError) throw new HttpError(400);
        const { clientId, subscriptions } = checkSubscribeBody(request.body);
        const client = broker.get(clientId);
        if (!client) throw new HttpError(404, 'Missing or invalid client id.');
        // An extra precaution against guessed client ids (PocketBase's).
        if (client.ip !== request.ip) throw new HttpError(400, 'Invalid realtime client.');
        const auth = await requestAuth(ctx, request);
        // Only a guest → member upgrade; any other change of auth is refused.
        if (client.auth && client.auth.userId !== auth?.user.id) {
          throw new ForbiddenError(
            "The current and the previous request authorization don't match.",
          );
        }
        if (client.closed) throw new HttpError(404, 'Missing or invalid client id.');
        broker.subscribe(
          client,
          auth ? { userId: auth.user.id, sessionId: auth.session.id } : null,
          subscriptions,
        );
        return reply.code(204).send(null);
      },
    );

    app.register(oauth2RedirectRoutes(ctx, broker));
  };
  return { plugin, broker };
}

/** PocketBase's form rules: clientId 1–255 characters; at most 1000 topics of 2500. */
function checkSubscribeBody(body: { clientId: string; subscriptions: string[] }) {
  const { clientId: id, subscriptions: topics } = body;
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
