import { formatNumber } from '../../lib/i18n';
import { t } from '@lingui/core/macro';
import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Avatar } from '../../components/avatar';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { ScreenHeading, textLink, usePageTitle } from '../../components/ui/screen';
import { useCurrentUser } from '../../lib/auth';
import { adminErrorMessage, treeQueryOptions, type TreeNode } from './api';
import { Badge, MemberBadges } from './member-badges';
import { QueryStatus } from '../../components/ui/query-status';

/** Rows rendered at a time under one member; "Show More" adds as many again. */
const CHUNK = 100;

/**
 * Admin → Invite Tree: the community from the initial user down. Only expanded branches are asked
 * for (one level at a time) and rendered, so a tree of 10,000 members costs what is open.
 */
export function InviteTreeScreen() {
  usePageTitle(t`Invite Tree`);
  const viewer = useCurrentUser()?.id ?? '';
  const tree = useQuery(treeQueryOptions(viewer, undefined));
  return (
    <>
      <ScreenHeading>{t`Invite Tree`}</ScreenHeading>
      <TitledCard
        title={t`Who Invited Whom`}
        description={t`Each member with the people who signed up with their codes. The numbers count the people they invited and everyone in their branch. Expand a member to see their branch.`}
      >
        <QueryStatus
          query={tree}
          loading={t`Loading the tree...`}
          failed={t`We couldn't load the invite tree. ${adminErrorMessage(tree.error, t`Please try again later.`)}`}
        />
        {tree.isSuccess ? (
          <ul aria-label={t`Invite tree`} className="flex flex-col gap-1">
            <Branch viewer={viewer} node={tree.data} loaded={tree.data.children} startOpen />
          </ul>
        ) : null}
      </TitledCard>
    </>
  );
}

/** One member and, when expanded, the people they invited. */
function Branch({
  viewer,
  node,
  loaded,
  startOpen = false,
}: {
  viewer: string;
  node: TreeNode;
  /** Children already in hand (the root's come with it). */
  loaded?: TreeNode[];
  startOpen?: boolean;
}) {
  const [open, setOpen] = useState(startOpen);
  const listId = useId();
  const hasChildren = node.childCount > 0;
  const invited = formatNumber(node.childCount);
  const inBranch = formatNumber(node.descendants);
  return (
    <li className="flex flex-col gap-1">
      {/* Three columns on every row, at every width: the toggle (or its room), the picture, and
          the member, whose email starts each row at the same place (docs/decisions/0068). */}
      <div className="grid grid-cols-[6rem_auto_minmax(0,1fr)] items-start gap-x-3 rounded-md py-1">
        {hasChildren ? (
          <Button
            variant="secondary"
            className="min-h-9 w-24 px-2 py-1"
            aria-expanded={open}
            aria-controls={open ? listId : undefined}
            aria-label={`${open ? t`Collapse` : t`Expand`} ${node.email}`}
            onClick={() => setOpen((o) => !o)}
          >
            <span aria-hidden="true">{open ? '▾' : '▸'}</span>
            {open ? t`Collapse` : t`Expand`}
          </Button>
        ) : (
          <span className="w-24" aria-hidden="true" />
        )}
        <span className="flex min-h-9 items-center">
          <Avatar member={node} size="sm" />
        </span>
        <div className="flex min-h-9 flex-col items-start justify-center gap-1 text-left">
          <Link
            to="/admin/members/$id"
            params={{ id: node.id }}
            className={`${textLink} wrap-anywhere`}
          >
            {node.email}
          </Link>
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            {node.name ? (
              <span className="text-sm font-medium wrap-anywhere">{node.name}</span>
            ) : null}
            <MemberBadges member={node} />
            {node.inviterDeleted ? <Badge tone="amber">{t`Inviter deleted`}</Badge> : null}
            <span className="text-sm text-slate-700 dark:text-slate-300">
              {t`${invited} invited · ${inBranch} in branch`}
            </span>
          </div>
        </div>
      </div>
      {open && hasChildren ? (
        <Children viewer={viewer} node={node} loaded={loaded} listId={listId} />
      ) : null}
    </li>
  );
}

function Children({
  viewer,
  node,
  loaded,
  listId,
}: {
  viewer: string;
  node: TreeNode;
  loaded?: TreeNode[];
  listId: string;
}) {
  const [shown, setShown] = useState(CHUNK);
  const branch = useQuery({ ...treeQueryOptions(viewer, node.id), enabled: !loaded });
  const children = loaded ?? branch.data?.children;
  const left = formatNumber((children?.length ?? 0) - shown);
  return (
    <div
      id={listId}
      className="ml-3 border-l-2 border-slate-200 pl-3 sm:ml-6 dark:border-slate-700"
    >
      {!children && branch.isPending ? (
        <p className="py-1 text-sm text-slate-700 dark:text-slate-300">{t`Loading...`}</p>
      ) : null}
      {branch.isError ? (
        <p role="alert" className="py-1 text-sm text-red-800 dark:text-red-200">
          {adminErrorMessage(branch.error, t`We couldn't load this branch. Please try again.`)}
        </p>
      ) : null}
      {children ? (
        <ul aria-label={t`Invited by ${node.email}`} className="flex flex-col gap-1">
          {children.slice(0, shown).map((child) => (
            <Branch key={child.id} viewer={viewer} node={child} />
          ))}
        </ul>
      ) : null}
      {children && children.length > shown ? (
        <Button variant="ghost" className="mt-1" onClick={() => setShown((n) => n + CHUNK)}>
          {t`Show More (${left} left)`}
        </Button>
      ) : null}
    </div>
  );
}
