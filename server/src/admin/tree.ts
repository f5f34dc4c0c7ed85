import { sql } from 'kysely';
import type { AppContext } from '../core/context.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { isOperator } from '../core/users.js';

/**
 * Who invited whom (`users.invited_by`, recorded at sign-up), from a root down to `depth` levels,
 * each shown node with its direct children count and its whole branch's size. One recursive query:
 * it walks the branch once, pairing every member with each of its shown ancestors, and counts
 * per ancestor; the cost grows with the size of the branch (and `depth`), not of the community.
 * Members whose inviter deleted their account hang under the initial user, marked
 * `inviterDeleted`.
 */

export const DEFAULT_DEPTH = 2;
export const MAX_DEPTH = 10;

export interface TreeNode {
  id: string;
  email: string;
  created: string;
  disabled: boolean;
  isOperator: boolean;
  inviterDeleted: boolean;
  /** Direct invitees (all of them, shown or not). */
  childCount: number;
  /** Everyone in the branch below this member. */
  descendants: number;
  /** Shown to `depth`; empty past it even when `childCount` is not 0 (ask with this as root). */
  children: TreeNode[];
}

export function readDepth(value: unknown): number {
  if (value === undefined || value === '') return DEFAULT_DEPTH;
  const n = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n > MAX_DEPTH) {
    throw new ValidationError(`Depth must be a whole number from 0 to ${MAX_DEPTH}.`);
  }
  return n;
}

interface Row {
  id: string;
  email: string;
  created: string;
  disabled: number;
  is_operator: number;
  is_initial_user: number;
  invited_by: string | null;
  lvl: number | string;
  descendants: number | string;
  children: number | string;
}

export async function inviteTree(
  ctx: AppContext,
  rootId: string | undefined,
  depth: number,
): Promise<TreeNode> {
  let root = rootId;
  if (!root) {
    const initial = await ctx.db
      .selectFrom('users')
      .select('id')
      .where('is_initial_user', '=', 1)
      .executeTakeFirst();
    if (!initial) throw new NotFoundError();
    root = initial.id;
  }
  const start = await ctx.db
    .selectFrom('users')
    .select(['id', 'is_initial_user'])
    .where('id', '=', root)
    .executeTakeFirst();
  if (!start) throw new NotFoundError();

  const d = sql.lit(depth);
  // Under the initial user: also those whose inviter's account is gone (an id that is no user).
  const orphans = sql`SELECT o.id FROM users o WHERE o.invited_by IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM users i WHERE i.id = o.invited_by)`;
  const orphanSeeds =
    start.is_initial_user === 1
      ? sql`UNION ALL SELECT x.id, x.id, 1, 0 FROM (${orphans}) x WHERE ${d} >= 1
            UNION ALL SELECT CAST(${root} AS text), x.id, 0, 1 FROM (${orphans}) x`
      : sql``;
  // pairs(anc, id, lvl, rel): `id` is in the branch of the shown node `anc` (at level `lvl`),
  // `rel` levels below it. A member's row with rel 0 makes it a shown node while lvl < depth.
  const { rows } = await sql<Row>`
    WITH RECURSIVE pairs(anc, id, lvl, rel) AS (
      SELECT u.id, u.id, 0, 0 FROM users u WHERE u.id = ${root}
      ${orphanSeeds}
      UNION ALL
      SELECT CASE WHEN k.n = 0 THEN p.anc ELSE u.id END,
             u.id,
             CASE WHEN k.n = 0 THEN p.lvl ELSE p.lvl + 1 END,
             CASE WHEN k.n = 0 THEN p.rel + 1 ELSE 0 END
      FROM pairs p
      JOIN users u ON u.invited_by = p.id
      JOIN (SELECT 0 AS n UNION ALL SELECT 1 AS n) k ON k.n = 0 OR (p.rel = 0 AND p.lvl < ${d})
    ),
    counts AS (
      SELECT anc, lvl, count(*) - 1 AS descendants,
             sum(CASE WHEN rel = 1 THEN 1 ELSE 0 END) AS children
      FROM pairs GROUP BY anc, lvl
    )
    SELECT u.id, u.email, u.created, u.disabled, u.is_operator, u.is_initial_user, u.invited_by,
           c.lvl, c.descendants, c.children
    FROM counts c JOIN users u ON u.id = c.anc
    ORDER BY c.lvl, u.created, u.id`.execute(ctx.db);

  const shown = new Map<string, { node: TreeNode; lvl: number }>();
  let top: TreeNode | undefined;
  for (const row of rows) {
    const lvl = Number(row.lvl);
    const node: TreeNode = {
      id: row.id,
      email: row.email,
      created: row.created,
      disabled: row.disabled === 1,
      isOperator: isOperator(row),
      inviterDeleted: false,
      childCount: Number(row.children),
      descendants: Number(row.descendants),
      children: [],
    };
    shown.set(row.id, { node, lvl });
    if (lvl === 0) {
      top = node;
      continue;
    }
    const parent = row.invited_by ? shown.get(row.invited_by) : undefined;
    if (parent && parent.lvl === lvl - 1) parent.node.children.push(node);
    else {
      node.inviterDeleted = true;
      top?.children.push(node);
    }
  }
  if (!top) throw new NotFoundError();
  return top;
}
