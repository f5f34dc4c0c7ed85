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
      detail: JSON.parse(r.detail) as unknown,
    })),
    total,
  );
}

/** Deletes security events older than the retention period, in small batches. */
export async function deleteOldEvents(ctx: AppContext): Promise<number> {
  const cutoff = fromNow(-ctx.config.auditRetentionDays * 24 * 60 * 60_000);
  let deleted = 0;
  for (;;) {
    const batch = await ctx.db
      .selectFrom('security_events')
      .select('id')
      .where('created', '<', cutoff)
      .limit(500)
      .execute();
    if (batch.length === 0) return deleted;
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
