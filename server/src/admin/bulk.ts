import { operatorAccountMail } from '../accounts/service.js';
import type { AppContext, Client } from '../core/context.js';
import { fieldError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import { inTransaction, type Work } from '../core/transaction.js';
import type { User } from '../db/schema.js';
import {
  ALREADY_VERIFIED,
  disableIn,
  disableRefusal,
  enableIn,
  markVerifiedIn,
} from './actions.js';

/**
 * The Members table's bulk actions (POST /api/admin/members/bulk): one action for up to MAX_BULK
 * members, each member getting what the single action on their page does (its events and mail),
 * all in one transaction; the members it does not apply to are skipped, each with a reason.
 */

export const BULK_ACTIONS = [
  'disable',
  'enable',
  'resend-verification',
  'password-reset',
  'mark-verified',
] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** The most members one bulk action takes: a page of the table is 30, a selection stays small. */
export const MAX_BULK = 200;

/** What a bulk action did to one member: done, or skipped and why. */
export interface BulkOutcome {
  id: string;
  result: 'done' | 'skipped';
  reason: string | null;
}

export const UNKNOWN_MEMBER = 'There is no member with this id.';

/** Reads the request: a known action and 1 to MAX_BULK ids (each once); 400 otherwise. */
export function readBulk(body: { action: string; ids?: string[] }): {
  action: BulkAction;
  ids: string[];
} {
  const action = BULK_ACTIONS.find((a) => a === body.action);
  const ids = [...new Set(body.ids ?? [])];
  const errors: Record<string, ReturnType<typeof fieldError.required>> = {};
  if (body.action === '') errors.action = fieldError.required();
  else if (!action) {
    errors.action = {
      code: 'validation_in_invalid',
      message: `Must be one of: ${BULK_ACTIONS.join(', ')}.`,
    };
  }
  if (ids.length === 0) errors.ids = fieldError.required();
  else if (ids.length > MAX_BULK) errors.ids = fieldError.lengthOutOfRange(1, MAX_BULK);
  if (Object.keys(errors).length > 0) throw new ValidationError(VALIDATION_FAILED, errors);
  return { action: action!, ids };
}

/**
 * Why a bulk action passes `member` by, or undefined when it applies: the single actions' rules,
 * and more. A bulk Disable leaves operators alone (one is disabled from their page, on purpose);
 * each action skips members it would not change.
 */
function skipReason(action: BulkAction, member: User, actor: string): string | undefined {
  switch (action) {
    case 'disable':
      if (member.is_operator === 1 && member.is_initial_user !== 1 && member.id !== actor) {
        return 'Operators are disabled one at a time, from their page.';
      }
      return (
        disableRefusal(member, actor) ?? (member.disabled === 1 ? 'Already disabled.' : undefined)
      );
    case 'enable':
      return member.disabled === 1 ? undefined : 'Not disabled.';
    case 'resend-verification':
      return member.verified === 1 ? ALREADY_VERIFIED : undefined;
    case 'password-reset':
      // They could not sign in with a new password: no mail that suggests they could.
      return member.disabled === 1 ? 'This account has been disabled.' : undefined;
    case 'mark-verified':
      return member.verified === 1 ? ALREADY_VERIFIED : undefined;
  }
}

async function apply(
  ctx: AppContext,
  work: Work,
  action: BulkAction,
  member: User,
  actor: string,
  client: Client,
): Promise<void> {
  switch (action) {
    case 'disable':
      return disableIn(work, member.id, actor, client);
    case 'enable':
      return enableIn(work, member.id, actor, client);
    case 'mark-verified':
      return markVerifiedIn(work, member.id, actor, client);
    case 'resend-verification':
    case 'password-reset': {
      const kind = action === 'password-reset' ? 'passwordReset' : 'verification';
      await operatorAccountMail(ctx, work.trx, kind, member, client, actor);
      work.mailQueued();
    }
  }
}

/**
 * Runs `action` for each member of `ids` it applies to, all in one transaction (every change,
 * event and mail with it, or none), and says what happened to each: unknown ids and members it
 * does not apply to are skipped with a reason.
 */
export async function bulkAction(
  ctx: AppContext,
  action: BulkAction,
  ids: readonly string[],
  actor: string,
  client: Client,
): Promise<{ done: number; skipped: number; results: BulkOutcome[] }> {
  const members = await ctx.db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
  const byId = new Map(members.map((m) => [m.id, m]));
  const results: BulkOutcome[] = ids.map((id) => {
    const member = byId.get(id);
    const reason = member ? skipReason(action, member, actor) : UNKNOWN_MEMBER;
    return { id, result: reason ? 'skipped' : 'done', reason: reason ?? null };
  });
  const todo = results.flatMap((r) => (r.result === 'done' ? [byId.get(r.id)!] : []));
  if (todo.length > 0) {
    await inTransaction(ctx, async (work) => {
      for (const member of todo) await apply(ctx, work, action, member, actor, client);
    });
  }
  return { done: todo.length, skipped: results.length - todo.length, results };
}
