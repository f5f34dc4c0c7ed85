import type { AppContext } from '../core/context.js';
import { listAnswer, type ListQuery } from '../http/list.js';
import { fromNow } from '../tools/time.js';

/** A member's security events, newest first. */
export async function memberEvents(ctx: AppContext, userId: string, list: ListQuery) {
  const rows = await ctx.db
    .selectFrom('security_events')
    .select(['id', 'created', 'type', 'ip', 'user_agent', 'outcome', 'detail'])
    .where('user_id', '=', userId)
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(list.perPage)
    .offset((list.page - 1) * list.perPage)
    .execute();
  let total: number | undefined;
  if (!list.skipTotal) {
    const row = await ctx.db
      .selectFrom('security_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    total = Number(row.n);
  }
  return listAnswer(
    list,
    rows.map((r) => ({
      id: r.id,
      created: r.created,
      type: r.type,
      ip: r.ip,
      userAgent: r.user_agent,
      outcome: r.outcome,
      // Always an object: core/audit.ts writes `detail ?? {}`.
      detail: JSON.parse(r.detail) as Record<string, unknown>,
    })),
    total,
  );
}

/** `detail.actor` of what the command line did (admin/commands.ts). */
export const CLI_ACTOR = 'cli';

/**
 * Who did an operator action (`detail.actor`): the operator's id and current email (null when that
 * account is gone), or `{"id":"cli","email":null}` for the command line; null for other events.
 */
export interface EventActor {
  id: string;
  email: string | null;
}

/**
 * Every member's security events, newest first, optionally of one member and/or one type. Each
 * names its acting operator (`actor`), looked up for the whole page in one query by primary key, so
 * a page costs the same at a million members (docs/decisions/0031).
 */
export async function allEvents(
  ctx: AppContext,
  filter: { member?: string; type?: string },
  list: ListQuery,
) {
  let query = ctx.db.selectFrom('security_events');
  if (filter.member) query = query.where('user_id', '=', filter.member);
  if (filter.type) query = query.where('type', '=', filter.type);
  const rows = await query
    .leftJoin('users', 'users.id', 'security_events.user_id')
    .select([
      'security_events.id',
      'security_events.created',
      'security_events.type',
      'security_events.user_id',
      'users.email',
      'security_events.ip',
      'security_events.user_agent',
      'security_events.outcome',
      'security_events.detail',
    ])
    .orderBy('security_events.created', 'desc')
    .orderBy('security_events.id', 'desc')
    .limit(list.perPage)
    .offset((list.page - 1) * list.perPage)
    .execute();
  let total: number | undefined;
  if (!list.skipTotal) {
    const row = await query
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    total = Number(row.n);
  }
  const details = rows.map((r) => JSON.parse(r.detail) as Record<string, unknown>);
  const actorOf = (detail: Record<string, unknown>) =>
    typeof detail.actor === 'string' ? detail.actor : undefined;
  const operators = [
    ...new Set(
      details.map(actorOf).filter((id): id is string => id !== undefined && id !== CLI_ACTOR),
    ),
  ];
  const emails = new Map(
    operators.length === 0
      ? []
      : (
          await ctx.db
            .selectFrom('users')
            .select(['id', 'email'])
            .where('id', 'in', operators)
            .execute()
        ).map((u) => [u.id, u.email]),
  );
  return listAnswer(
    list,
    rows.map((r, i) => {
      const detail = details[i]!;
      const actor = actorOf(detail);
      return {
        id: r.id,
        created: r.created,
        type: r.type,
        member: r.user_id,
        // null: no member (an unknown email) or the account is gone.
        email: r.email,
        actor: actor === undefined ? null : { id: actor, email: emails.get(actor) ?? null },
        ip: r.ip,
        userAgent: r.user_agent,
        outcome: r.outcome,
        detail,
      };
    }),
    total,
  );
}

/** When the member last signed in (within the log's retention), or null. */
export async function lastSignIn(ctx: AppContext, userId: string): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('security_events')
    .select('created')
    .where('user_id', '=', userId)
    .where('type', '=', 'sign_in')
    .where('outcome', '=', 'success')
    .orderBy('created', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.created ?? null;
}

/** The last successful sign-in on record of each of `userIds` (those with none are left out). */
export async function lastSignIns(
  ctx: AppContext,
  userIds: readonly string[],
): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('security_events')
    .select((eb) => ['user_id', eb.fn.max('created').as('created')])
    .where('user_id', 'in', userIds)
    .where('type', '=', 'sign_in')
    .where('outcome', '=', 'success')
    .groupBy('user_id')
    .execute();
  return new Map(rows.flatMap((r) => (r.user_id ? [[r.user_id, String(r.created)]] : [])));
}

/** Deletes security events older than the retention period, in small batches. */
export async function deleteOldEvents(ctx: AppContext): Promise<number> {
  const cutoff = fromNow(-ctx.settings.auditRetentionDays * 24 * 60 * 60_000);
  let deleted = 0;
  for (;;) {
    const batch = await ctx.db
      .selectFrom('security_events')
      .select('id')
      .where('created', '<', cutoff)
      .limit(500)
      .execute();
    if (batch.length === 0) {
      // The Members table sorts by the last sign-in on record: one older than every event kept
      // is no longer on record (docs/decisions/0057).
      await ctx.db
        .updateTable('member_sort')
        .set({ last_sign_in: null })
        .where('last_sign_in', '<', cutoff)
        .execute();
      return deleted;
    }
    await ctx.db
      .deleteFrom('security_events')
      .where(
        'id',
        'in',
        batch.map((r) => r.id),
      )
      .execute();
    deleted += batch.length;
  }
}
