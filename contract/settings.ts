import {
  Body,
  ErrorEnvelope,
  NoContent,
  type RouteSchema,
  SIGNED_IN,
  Text,
  Type,
  type Static,
  type TSchema,
} from './schema.js';

/**
 * The app's settings, PocketBase's settings API (server/src/settings/routes.ts): operators only
 * (401 to a guest, 403 to a member who is not one); a change also needs a fresh session (403
 * "Confirm it's you to continue."). PocketBase's sections where PocketBase has the field, and
 * `gatehouse` for Gatehouse's own; `lockedByEnv` names the fields the server's environment sets.
 */
const tags = ['Settings'];
const operator = { 401: ErrorEnvelope, 403: ErrorEnvelope };

/**
 * PocketBase's error envelope with its field errors nested as the settings are
 * (`{"data":{"smtp":{"port":{"code":…,"message":…}}}}`).
 */
export const SettingsErrorEnvelope = Type.Object(
  {
    data: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }),
    message: Type.String(),
    status: Type.Integer(),
  },
  { additionalProperties: true },
);

/** The settings, in PocketBase's key order; the SMTP password is never sent (as PocketBase). */
export const SettingsAnswer = Type.Object({
  smtp: Type.Object({
    enabled: Type.Boolean(),
    port: Type.Integer(),
    host: Type.String(),
    username: Type.String(),
    authMethod: Type.String({ description: "'' (PLAIN), 'PLAIN' or 'LOGIN'" }),
    tls: Type.Boolean({ description: 'TLS from the start (465); false: STARTTLS when offered' }),
    localName: Type.String({ description: "the name for EHLO; '' for the default" }),
  }),
  backups: Type.Object({
    cron: Type.String({ description: "a cron expression (UTC); '' for no scheduled backups" }),
    cronMaxKeep: Type.Integer({ description: 'how many scheduled backups to keep' }),
  }),
  meta: Type.Object({
    appName: Type.String(),
    appURL: Type.String({ description: 'where mail links lead' }),
    senderName: Type.String(),
    senderAddress: Type.String(),
  }),
  batch: Type.Object({
    enabled: Type.Boolean({ description: 'whether POST /api/batch is open (off by default)' }),
    maxRequests: Type.Integer({ description: 'the most requests one batch may hold' }),
    timeout: Type.Integer({ description: "seconds a batch's transaction may take (0: 3)" }),
    maxBodySize: Type.Integer({ description: "a batch's largest body in bytes (0: 128 MiB)" }),
  }),
  logs: Type.Object({ maxDays: Type.Integer({ description: 'days request logs are kept' }) }),
  gatehouse: Type.Object({
    invitesPerMember: Type.Integer({ description: 'unused invite codes a new member starts with' }),
    sessionMaxDays: Type.Integer({ description: "a session's absolute lifetime" }),
    auditRetentionDays: Type.Integer({ description: 'days security events are kept' }),
  }),
  lockedByEnv: Type.Array(Type.String(), {
    description:
      'the fields (`section.field`) the environment sets (APP_NAME, APP_URL, MAIL_FROM, SMTP_URL, ' +
      'INVITES_PER_USER, SESSION_MAX_DAYS, AUDIT_RETENTION_DAYS): they show its values, and a ' +
      'change to one is refused',
  }),
});
export type SettingsAnswer = Static<typeof SettingsAnswer>;

/** A field a change may send: absent or `null` leaves it as it is (as PocketBase reads it). */
const Change = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
/** A section of a change: the fields it sends. */
const Section = <T extends Parameters<typeof Type.Object>[0]>(fields: T) =>
  Type.Optional(Type.Union([Body(fields), Type.Null()]));

export const getSettings = {
  summary: 'The app settings (the SDK’s `pb.settings.getAll()`)',
  tags,
  security: SIGNED_IN,
  response: { 200: SettingsAnswer, ...operator },
} satisfies RouteSchema;

export const updateSettings = {
  summary: 'Change app settings (the SDK’s `pb.settings.update()`)',
  description:
    'Only the fields sent change; the answer is every setting. A bad value is a field error ' +
    'nested as the field (`data.smtp.port`) and nothing is saved; a change to a field in ' +
    '`lockedByEnv` is refused the same way. Every instance uses the new values at once.',
  tags,
  security: SIGNED_IN,
  body: Body({
    meta: Section({
      appName: Change(Type.String()),
      appURL: Change(Type.String()),
      senderName: Change(Type.String()),
      senderAddress: Change(Type.String()),
    }),
    smtp: Section({
      enabled: Change(Type.Boolean()),
      host: Change(Type.String()),
      port: Change(Type.Integer()),
      username: Change(Type.String()),
      password: Change(Type.String({ description: 'written only; never sent back' })),
      authMethod: Change(Type.String()),
      tls: Change(Type.Boolean()),
      localName: Change(Type.String()),
    }),
    backups: Section({ cron: Change(Type.String()), cronMaxKeep: Change(Type.Integer()) }),
    batch: Section({
      enabled: Change(Type.Boolean()),
      maxRequests: Change(Type.Integer()),
      timeout: Change(Type.Integer()),
      maxBodySize: Change(Type.Integer()),
    }),
    logs: Section({ maxDays: Change(Type.Integer()) }),
    gatehouse: Section({
      invitesPerMember: Change(Type.Integer()),
      sessionMaxDays: Change(Type.Integer()),
      auditRetentionDays: Change(Type.Integer()),
    }),
  }),
  response: { 200: SettingsAnswer, 400: SettingsErrorEnvelope, ...operator },
} satisfies RouteSchema;

export const testEmail = {
  summary: 'Send a test email of a template (the SDK’s `pb.settings.testEmail()`)',
  description:
    'Queued in the outbox and sent as every mail is. `template`: verification, password-reset, ' +
    "email-change, otp or login-alert; `collection`: users (its id), _superusers or '' — " +
    "Gatehouse's operators are members, so each names the same mails.",
  tags,
  security: SIGNED_IN,
  body: Body({ email: Text(), template: Text(), collection: Text() }),
  response: { 204: NoContent, 400: ErrorEnvelope, ...operator },
} satisfies RouteSchema;
