import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/gate.js';
import type { AppContext } from '../core/context.js';
import { ForbiddenError, ValidationError } from '../core/errors.js';
import { requireAuth } from '../http/auth.js';
import { HttpError } from '../http/envelope.js';
import {
  gateHost,
  groupsOf,
  mayPass,
  memberOfCookie,
  readCookie,
  setCookieHeader,
} from './gate.js';

/** Not a protected address (or none): the gate has nowhere to send the member back to. */
export const NOT_A_GATE_ADDRESS = 'This address is not one of the apps Gatehouse protects.';

/** `Zoë Ålund` → `Zo%C3%AB %C3%85lund`; printable ASCII other than `%` as it is. */
export function headerText(value: string): string {
  return value.replace(/[^\x20-\x24\x26-\x7e]/gu, (c) => encodeURIComponent(c));
}

/**
 * The gate (docs/decisions/0061): GET /api/gatehouse/gate answers the proxy about each request;
 * POST /api/gatehouse/gate/pass gives a signed-in member the cookie for the parent domain.
 */
export function gateRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/api/gatehouse/gate', { schema: C.check }, async (request, reply) => {
      const forwarded = request.headers['x-forwarded-host'];
      const host = gateHost(
        ctx,
        (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0] ??
          request.headers.host,
      );
      const found = host
        ? await memberOfCookie(ctx, readCookie(request.headers.cookie))
        : undefined;
      if (!host || !found || !mayPass(found.user, host)) throw new HttpError(401);
      const { user } = found;
      return (
        reply
          .header('x-gatehouse-id', user.id)
          .header('x-gatehouse-email', user.email)
          // A header holds ASCII safely: any other character (and `%`) percent-encoded as UTF-8,
          // so `decodeURIComponent` gives the name back and a plain name reads as it is.
          .header('x-gatehouse-name', headerText(user.name ?? ''))
          .header('x-gatehouse-groups', groupsOf(user).join(','))
          .code(200)
          .send(null)
      );
    });

    api.post('/api/gatehouse/gate/pass', { schema: C.pass }, async (request, reply) => {
      const auth = await requireAuth(ctx, request);
      let target: URL | undefined;
      try {
        target = new URL(request.body.redirect);
      } catch {
        target = undefined;
      }
      const host =
        target && /^https?:$/.test(target.protocol) ? gateHost(ctx, target.host) : undefined;
      if (!target || !host || !ctx.config.gate.cookieDomain) {
        throw new ValidationError(NOT_A_GATE_ADDRESS);
      }
      if (!mayPass(auth.user, host))
        throw new ForbiddenError(`${host.host} is for operators only.`);
      return reply
        .header('set-cookie', setCookieHeader(ctx, auth.session))
        .send({ redirect: target.href });
    });
  };
}
