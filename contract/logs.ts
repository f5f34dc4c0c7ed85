import {
  DateText,
  ErrorEnvelope,
  Id,
  IdParams,
  type RouteSchema,
  SIGNED_IN,
  Type,
  type Static,
} from './schema.js';

/**
 * The request log for operators (server/src/logs/routes.ts), PocketBase's logs API, which the
 * SDK's `pb.logs.getList/getOne/getStats` read: the initial user and operators only (a guest
 * 401, a member 403).
 */
const tags = ['Logs'];
const operator = { 401: ErrorEnvelope, 403: ErrorEnvelope };

/** A query-string value: always text. */
const QueryText = (description?: string) =>
  Type.Optional(Type.String(description ? { description } : {}));

const FILTER_FIELDS =
  'PocketBase\'s filter grammar (`=`, `!=`, `>`, `>=`, `<`, `<=`, `~`, `!~`, `&&`, `||`, parentheses; quoted text, numbers, `null`, `@now`…) on `id`, `created`, `level`, `message` and `data.type`, `data.method`, `data.url`, `data.status`, `data.execTime`, `data.remoteIP`, `data.userAgent`, `data.auth`, `data.authId`, `data.job`, `data.trigger`, `data.error`; e.g. `data.status >= 400 && created >= "2026-11-25 00:00:00.000Z"`';

/** One entry of the log: PocketBase's log model, in its key order. */
export const LogEntry = Type.Object({
  id: Id(),
  created: DateText(),
  data: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    additionalProperties: true,
    description:
      'A request: `auth`, `authId`, `execTime` (ms), `method`, `remoteIP`, `status`, `type` ("request"), `url` (the route\'s pattern), `userAgent`. A scheduled job\'s run: `type` ("cron"), `job`, `trigger`, `execTime`, what it did, `error` when it failed.',
  }),
  message: Type.String({ description: 'e.g. `GET /api/invite-codes`' }),
  level: Type.Integer({
    description: '0 info, 4 warning, 8 error (a request answered 400 or more)',
  }),
});
export type LogEntry = Static<typeof LogEntry>;

export const LogList = Type.Object({
  page: Type.Integer(),
  perPage: Type.Integer(),
  totalItems: Type.Integer(),
  totalPages: Type.Integer(),
  items: Type.Array(LogEntry),
});
export type LogListAnswer = Static<typeof LogList>;

/** Requests per hour. */
export const HourlyStats = Type.Array(
  Type.Object({
    date: DateText(),
    total: Type.Integer(),
  }),
);
export type HourlyStatsAnswer = Static<typeof HourlyStats>;

export const listLogs = {
  summary: 'The request log, a page at a time',
  description:
    "PocketBase's list: `page`, `perPage` (at most 1000), `skipTotal`, `sort` (`@rowid`, `created` or `id`, `-` for newest first: each is the order of writing; default oldest first) and `filter`. A filter or sort the log cannot read is a 400. Successful reads of the log itself are not logged.",
  tags,
  security: SIGNED_IN,
  querystring: Type.Object({
    page: QueryText('from 1'),
    perPage: QueryText('default 30, at most 1000'),
    skipTotal: QueryText('`true` or `1`: totalItems and totalPages are -1'),
    sort: QueryText('`@rowid`, `created` or `id`; `-` first for newest first'),
    filter: QueryText(FILTER_FIELDS),
  }),
  response: { 200: LogList, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;

export const logStats = {
  summary: 'Rows of the request log per hour',
  description:
    'Every hour that has rows, oldest first, with the same `filter` as the list (a bad one: 400 "Invalid filter format.").',
  tags,
  security: SIGNED_IN,
  querystring: Type.Object({ filter: QueryText(FILTER_FIELDS) }),
  response: { 200: HourlyStats, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;

export const viewLog = {
  summary: 'One row of the request log',
  tags,
  security: SIGNED_IN,
  params: IdParams,
  response: { 200: LogEntry, ...operator, 404: ErrorEnvelope },
} satisfies RouteSchema;
