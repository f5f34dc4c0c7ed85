import type { FastifyRequest } from 'fastify';
import type { Client } from '../core/context.js';
import { clientNetwork } from '../core/rate-limit.js';

/** The longest user agent kept (it is free text from the client). */
const USER_AGENT_MAX = 512;

/** Who is asking: the client's address (after TRUST_PROXY) and browser. */
export function clientOf(request: FastifyRequest): Client {
  return {
    ip: request.ip,
    network: clientNetwork(request.ip),
    userAgent: (request.headers['user-agent'] ?? '').slice(0, USER_AGENT_MAX),
  };
}
