import type { TreeNodeAnswer } from '../../../contract/admin.js';
import type { AppContext } from '../core/context.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { isOperator } from '../core/users.js';

/**
 * Who invited whom, from a root down to `depth` levels, each shown node with its direct children
 * count and its whole branch's size. Both counts are kept in `invite_tree` by triggers on `users`
 * (migration 0010, docs/decisions/0031), so a request reads only the nodes it shows: the root,
 * then per shown node its first `limit` children (oldest first) from the index on
 * `(parent_id, created, user_id)`, breadth first until MAX_NODES. Members whose inviter deleted
 * their account hang under the initial user, marked `inviterDeleted`.
 */

export const DEFAULT_DEPTH = 2;
export const MAX_DEPTH = 10;
/** Children listed per shown node (`limit`). */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** At most this many nodes in one answer; past it, `children` stays `[]` like past `depth`. */
export const MAX_NODES = 2000;

/**
 * A node as the answer shows it (contract/admin.ts): `childCount` counts direct invitees (shown or
 * not), `descendants` the whole branch; `children` holds fewer than `childCount` past `depth`, past
 * `limit` or past MAX_NODES: ask again with this node as `root` (and `offset` for the rest).
 */
export type TreeNode = TreeNodeAnswer;

export interface TreeQuery {
  root: string | undefined;
  depth: number;
  /** Children listed per node. */
  limit: number;
  /** The root's children to skip (the next ones of a long list). */
  offset: number;
}

/** A whole number from `min` to `max` (`fallback` when absent), or a 400 with `message`. */
function wholeNumber(value: unknown, fallback: number, min: number, max: number, message: string) {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new ValidationError(message);
  return n;
}

export function readDepth(value: unknown): number {
  return wholeNumber(
    value,
    DEFAULT_DEPTH,
    0,
    MAX_DEPTH,
    `Depth must be a whole number from 0 to ${MAX_DEPTH}.`,
  );
}

/** `root`, `depth`, `limit` and `offset` from the query string; 400 for a bad number. */
export function readTreeQuery(query: unknown): TreeQuery {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  return {
    root: typeof q.root === 'string' && q.root !== '' ? q.root : undefined,
    depth: readDepth(q.depth),
    limit: wholeNumber(
      q.limit,
      DEFAULT_LIMIT,
      1,
      MAX_LIMIT,
      `Limit must be a whole number from 1 to ${MAX_LIMIT}.`,
    ),
    offset: wholeNumber(q.offset, 0, 0, 1e9, 'Offset must be a whole number from 0.'),
  };
}

interface Row {
  id: string;
  email: string;
  name: string;
  avatar: string;
  created: string;
  disabled: number;
  is_operator: number;
  is_initial_user: number;
  invited_by: string | null;
  children: number | string;
  descendants: number | string;
}

function nodes(ctx: AppContext) {
  return ctx.db
    .selectFrom('invite_tree as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select([
      'u.id',
      'u.email',
      'u.name',
      'u.avatar',
      'u.created',
      'u.disabled',
      'u.is_operator',
      'u.is_initial_user',
      'u.invited_by',
      't.children',
      't.descendants',
    ]);
}

function toNode(row: Row, parentId: string | undefined): TreeNode {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    avatar: row.avatar,
    created: row.created,
    disabled: row.disabled === 1,
    isOperator: isOperator(row),
    // Hung under the initial user because the account that invited them is gone.
    inviterDeleted: parentId !== undefined && row.invited_by !== parentId,
    childCount: Number(row.children),
    descendants: Number(row.descendants),
    children: [],
  };
}

export async function inviteTree(ctx: AppContext, query: TreeQuery): Promise<TreeNode> {
  let root = query.root;
  if (!root) {
    const initial = await ctx.db
      .selectFrom('users')
      .select('id')
      .where('is_initial_user', '=', 1)
      .executeTakeFirst();
    if (!initial) throw new NotFoundError();
    root = initial.id;
  }
  const top = await nodes(ctx).where('t.user_id', '=', root).executeTakeFirst();
  if (!top) throw new NotFoundError();
  const tree = toNode(top, undefined);

  let shown = 1;
  let level = [tree];
  for (let lvl = 1; lvl <= query.depth && level.length > 0; lvl++) {
    // How many children each node of this level shows: all of them when they fit (read together,
    // a few queries per level), else its first ones (a query of its own, LIMIT from the index).
    const whole: TreeNode[] = [];
    const part: Array<{ parent: TreeNode; take: number }> = [];
    for (const parent of level) {
      const skip = parent === tree ? query.offset : 0;
      const take = Math.min(query.limit, parent.childCount - skip, MAX_NODES - shown);
      if (take <= 0) continue;
      shown += take;
      if (skip === 0 && take === parent.childCount) whole.push(parent);
      else part.push({ parent, take });
    }
    const found = new Map<string, Row[]>();
    for (let i = 0; i < whole.length; i += 500) {
      const rows = await nodes(ctx)
        .select('t.parent_id')
        .where(
          't.parent_id',
          'in',
          whole.slice(i, i + 500).map((p) => p.id),
        )
        .orderBy('t.parent_id')
        .orderBy('t.created')
        .orderBy('t.user_id')
        .execute();
      for (const row of rows) {
        const list = found.get(row.parent_id!) ?? [];
        list.push(row);
        found.set(row.parent_id!, list);
      }
    }
    for (const { parent, take } of part) {
      const rows = await nodes(ctx)
        .where('t.parent_id', '=', parent.id)
        .orderBy('t.created')
        .orderBy('t.user_id')
        .limit(take)
        .offset(parent === tree ? query.offset : 0)
        .execute();
      found.set(parent.id, rows);
    }
    const next: TreeNode[] = [];
    for (const parent of level) {
      for (const row of (found.get(parent.id) ?? []).slice(0, query.limit)) {
        const node = toNode(row, parent.id);
        parent.children.push(node);
        next.push(node);
      }
    }
    level = next;
  }
  return tree;
}
