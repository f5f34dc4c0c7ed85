import { UserRecord } from './records.js';
import { Body, ErrorEnvelope, type RouteSchema, Type, type Static } from './schema.js';

/**
 * PocketBase's batch requests (server/src/batch/routes.ts): several record requests of the users
 * collection in one database transaction, what the SDK's `pb.createBatch()` sends.
 */
const tags = ['Batch'];

/** Text a request may also send as `null` (read as ''), as PocketBase reads it. */
const NullableText = (description: string) =>
  Type.Optional(Type.Union([Type.String(), Type.Null()], { description }));

/** One request of a batch, as PocketBase reads it (its InternalRequest). */
export const BatchRequest = Type.Object(
  {
    method: NullableText('POST, PUT (upsert), PATCH or DELETE; GET is no record change'),
    url: NullableText(
      '`/api/collections/users/records` (POST, PUT) or `/api/collections/users/records/{id}` (PATCH, DELETE); a query is ignored',
    ),
    body: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
        description: "the request's fields, as its route reads them",
      }),
    ),
    headers: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
        description: 'ignored: every request is the batch’s caller’s, with its Authorization',
      }),
    ),
  },
  { additionalProperties: true },
);
export type BatchRequest = Static<typeof BatchRequest>;

/** One request's answer: its status and what its route answers (a record, or null for 204). */
export const BatchResult = Type.Object({
  body: Type.Union([UserRecord, Type.Null()]),
  status: Type.Integer(),
});
export type BatchResult = Static<typeof BatchResult>;

/**
 * PocketBase's error envelope with the failing request's own answer nested:
 * `{"data":{"requests":{"1":{"code":"batch_request_failed","message":…,"response":{…}}}},…}`.
 */
export const BatchErrorEnvelope = Type.Object(
  {
    data: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }),
    message: Type.String(),
    status: Type.Integer(),
  },
  { additionalProperties: true },
);

export const batch = {
  summary: 'Several record changes in one transaction (the SDK’s `pb.createBatch()`)',
  description:
    'Off until an operator turns it on (settings `batch.enabled`): 403 `Batch requests are not allowed.`. ' +
    "Each request is the users collection's create, update, upsert or delete, checked exactly as when " +
    'sent alone with the batch’s Authorization (its own `headers` are ignored), in order, in one ' +
    'database transaction: all of them are saved or none is, and nothing is announced (realtime, ' +
    'mail) before the commit. One failing request fails the batch: 400 `Batch transaction failed.` ' +
    'with that request’s answer under `data.requests.{index}.response`. The SDK sends ' +
    '`multipart/form-data`: the requests as JSON in an `@jsonPayload` part, and files as ' +
    '`requests.{index}.avatar` parts (`requests[{index}].avatar` too).',
  tags,
  consumes: ['application/json', 'multipart/form-data'],
  body: Body({
    requests: Type.Optional(
      Type.Array(BatchRequest, {
        description: 'at least one, at most the settings’ `batch.maxRequests` (50)',
      }),
    ),
  }),
  response: {
    200: Type.Array(BatchResult, { description: "each request's answer, in order" }),
    400: BatchErrorEnvelope,
    403: ErrorEnvelope,
    413: ErrorEnvelope,
    415: ErrorEnvelope,
    429: ErrorEnvelope,
  },
} satisfies RouteSchema;
