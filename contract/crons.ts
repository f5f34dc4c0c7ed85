import {
  ErrorEnvelope,
  NoContent,
  type RouteSchema,
  SIGNED_IN,
  Type,
  type Static,
} from './schema.js';

/**
 * The scheduled jobs for operators (server/src/crons/routes.ts), PocketBase's crons API, which
 * the SDK's `pb.crons.getFullList/run` use: the initial user and operators only (a guest 401, a
 * member 403).
 */
const tags = ['Scheduled jobs'];
const operator = { 401: ErrorEnvelope, 403: ErrorEnvelope };

/** A job: its id and its cron expression (UTC; five fields, or six with seconds first). */
export const CronJob = Type.Object({
  id: Type.String({ description: 'e.g. `sessions_cleanup`' }),
  expression: Type.String({ description: 'e.g. `0 * * * *`' }),
});
export type CronJobAnswer = Static<typeof CronJob>;

export const listCrons = {
  summary: 'The scheduled jobs',
  description: 'Sorted by id, as PocketBase lists them (its own `__pb…` jobs last).',
  tags,
  security: SIGNED_IN,
  response: { 200: Type.Array(CronJob), ...operator },
} satisfies RouteSchema;

export const runCron = {
  summary: 'Run a scheduled job now',
  description:
    'Starts the job on the instance asked and answers at once, before it ends (as PocketBase does); its run is recorded in the request log (`data.type` "cron"). An unknown id: 404 "Missing or invalid cron job.".',
  tags,
  security: SIGNED_IN,
  params: Type.Object({ id: Type.String() }),
  response: { 204: NoContent, ...operator, 404: ErrorEnvelope },
} satisfies RouteSchema;
