import type { AppContext } from '../core/context.js';
import { listSessions } from '../core/sessions.js';
import { userRecord } from '../core/users.js';
import type { User } from '../db/schema.js';
import { listAllCodesOf } from '../invites/service.js';

/**
 * Everything the server holds about the member, as one JSON document: the record, their invite
 * codes (with who used each: an id only), sessions, passkeys, connected providers and security
 * events. Never a password hash, tokenKey or any other secret.
 */
export async function exportData(ctx: AppContext, user: User) {
  const [codes, sessions, passkeys, providers, events] = await Promise.all([
    listAllCodesOf(ctx, user.id),
    listSessions(ctx.db, user.id),
    // Names and dates only: never a credential id or public key.
    ctx.db
      .selectFrom('passkeys')
      .select(['name', 'created', 'last_used'])
      .where('user_id', '=', user.id)
      .orderBy('created', 'desc')
      .execute(),
    // Which provider and when; the id at the provider too (it is the member's own).
    ctx.db
      .selectFrom('external_auths')
      .select(['provider', 'provider_id', 'created'])
      .where('user_id', '=', user.id)
      .orderBy('created', 'desc')
      .execute(),
    ctx.db
      .selectFrom('security_events')
      .select(['created', 'type', 'ip', 'user_agent', 'outcome', 'detail'])
      .where('user_id', '=', user.id)
      .orderBy('created', 'desc')
      .execute(),
  ]);
  return {
    exported: new Date().toISOString(),
    record: userRecord(user, { withEmail: true }),
    inviteCodes: codes,
    sessions: sessions.map((s) => ({
      id: s.id,
      created: s.created,
      lastSeen: s.last_seen,
      expires: s.expires,
      ip: s.ip,
      userAgent: s.user_agent,
    })),
    passkeys: passkeys.map((p) => ({ name: p.name, created: p.created, lastUsed: p.last_used })),
    connectedProviders: providers.map((p) => ({
      provider: p.provider,
      providerId: p.provider_id,
      created: p.created,
    })),
    securityEvents: events.map((e) => ({
      created: e.created,
      type: e.type,
      ip: e.ip,
      userAgent: e.user_agent,
      outcome: e.outcome,
      detail: JSON.parse(e.detail) as unknown,
    })),
  };
}
