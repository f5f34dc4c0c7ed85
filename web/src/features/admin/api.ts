import { t } from '@lingui/core/macro';
import { queryOptions } from '@tanstack/react-query';
import type {
  BulkAnswer,
  GivenCodesAnswer,
  InviteSentAnswer,
  LogEventAnswer,
  MemberAnswer,
  MemberCodeAnswer,
  MemberDetailAnswer,
  MemberListItem,
  MembersAnswer,
  OutboxAnswer,
  QueuedMailAnswer,
  SecurityLogAnswer,
  TreeNodeAnswer,
  WaysInAnswer,
} from '../../../../contract/admin';
import type { SettingsAnswer } from '../../../../contract/settings';
import { statusOf } from '../../lib/api-error';
import { serverText } from '../../lib/messages';
import { pb } from '../../lib/pb';

/**
 * The operator console's data (docs/api.md, "Operator console"). The server is the guard: every
 * /api/admin/ call answers 403 to a member who is not an operator; the app only hides what they
 * may not use. Every query key starts with the signed-in viewer's id, so one person's console is
 * never shown to the next one signing in on the same browser.
 */

// The answers' types are the server's schemas (contract/admin.ts); these are the console's names.
/** A member as the console shows one: the user record plus role and state. */
export type Member = MemberAnswer;
/** A row of the Members table: the member, who invited them, last sign-in, two-step sign-in. */
export type MemberRow = MemberListItem;
/** A member's page: the member, who invited them, their codes, sessions and newest events. */
export type MemberDetail = MemberDetailAnswer;
export type MemberCode = MemberCodeAnswer;
/** How they sign in: what Reset Two-Step Sign-In would remove, and what it leaves. */
export type WaysIn = WaysInAnswer;
export type TreeNode = TreeNodeAnswer;
export type QueuedMail = QueuedMailAnswer;
/** An entry of the whole security log: an event with its member and who acted (`actor`). */
export type LogEvent = LogEventAnswer;

/** The actor id of what the command line did; an operator whose account is gone has no email. */
export const CLI_ACTOR = 'cli';

/** Rows per page in the console's lists. */
export const PER_PAGE = 30;

/** The server counts a search's matches up to this many; beyond it the total comes as -1. */
export const COUNT_LIMIT = 10_000;

export type MemberStatus = 'verified' | 'unverified' | 'disabled';

/** The orders of the Members table: its sortable columns, each way (PocketBase's sort). */
export const MEMBER_SORTS = [
  '-created',
  'created',
  'email',
  '-email',
  'disabled',
  '-disabled',
  'verified',
  '-verified',
  'twoStep',
  '-twoStep',
  'lastSignIn',
  '-lastSignIn',
  'invitedBy',
  '-invitedBy',
] as const;
export type MemberSort = (typeof MEMBER_SORTS)[number];

/** The Members screen's search params: what the address bar keeps (read by the route). */
export interface MembersSearch {
  q?: string;
  status?: MemberStatus;
  /** PocketBase's filter grammar (`verified = false && created > "2026-01-01"`). */
  filter?: string;
  sort?: MemberSort;
  page?: string;
}

/** The Security Log's search params. */
export interface LogSearch {
  member?: string;
  type?: string;
  page?: string;
}

export function pageNumber(search: { page?: string }): number {
  return search.page ? Number(search.page) : 1;
}

export const adminKeys = {
  all: ['admin'] as const,
  of: (viewer: string) => [...adminKeys.all, viewer] as const,
  me: (viewer: string) => [...adminKeys.of(viewer), 'me'] as const,
  members: (viewer: string) => [...adminKeys.of(viewer), 'members'] as const,
  member: (viewer: string, id: string) => [...adminKeys.of(viewer), 'member', id] as const,
  tree: (viewer: string) => [...adminKeys.of(viewer), 'tree'] as const,
  outbox: (viewer: string) => [...adminKeys.of(viewer), 'outbox'] as const,
  log: (viewer: string) => [...adminKeys.of(viewer), 'log'] as const,
};

export { meQueryOptions } from '../../lib/me';

/**
 * The app's settings as the console shows them (GET /api/settings, operators only; settings-api.ts
 * has the rest). Here, beside the keys, so Home's first steps read the same cache without loading
 * the console's settings code.
 */
export const settingsKeys = {
  settings: (viewer: string) => [...adminKeys.of(viewer), 'settings'] as const,
};

export const settingsQueryOptions = (viewer: string) =>
  queryOptions({
    queryKey: settingsKeys.settings(viewer),
    queryFn: () => pb.send<SettingsAnswer>('/api/settings', {}),
  });

/**
 * A page of members. The total is counted only on the first page of a search (docs/api.md:
 * the console asks for it once per search); other pages pass `skipTotal`.
 */
export const membersQueryOptions = (viewer: string, search: MembersSearch) => {
  const page = pageNumber(search);
  const filter = membersFilter(search);
  return queryOptions({
    queryKey: [...adminKeys.members(viewer), filter, page],
    queryFn: () =>
      pb.send<MembersAnswer>('/api/admin/members', {
        query: { ...filter, page, perPage: PER_PAGE, ...(page > 1 ? { skipTotal: 1 } : {}) },
      }),
  });
};

/** What picks the members (the list and its CSV export): search, status, filter and sort. */
function membersFilter(search: MembersSearch) {
  return {
    q: search.q ?? '',
    status: search.status ?? '',
    filter: search.filter ?? '',
    sort: search.sort ?? '-created',
  };
}

export const memberQueryOptions = (viewer: string, id: string) =>
  queryOptions({
    queryKey: adminKeys.member(viewer, id),
    queryFn: () => pb.send<MemberDetail>(`/api/admin/members/${encodeURIComponent(id)}`, {}),
  });

/** One level of the invite tree under `root` (the initial user when undefined): lazy branches. */
export const treeQueryOptions = (viewer: string, root: string | undefined) =>
  queryOptions({
    queryKey: [...adminKeys.tree(viewer), root ?? '', 1],
    queryFn: () =>
      pb.send<TreeNode>('/api/admin/invite-tree', {
        query: { ...(root ? { root } : {}), depth: 1 },
      }),
  });

export const outboxQueryOptions = (viewer: string, page: number) =>
  queryOptions({
    queryKey: [...adminKeys.outbox(viewer), page],
    queryFn: () =>
      pb.send<OutboxAnswer>('/api/admin/outbox', {
        query: { page, perPage: PER_PAGE, skipTotal: 1 },
      }),
    // Mail moves on its own (the worker sends and retries): the screen follows it.
    refetchInterval: 5000,
  });

export const logQueryOptions = (viewer: string, search: LogSearch) => {
  const page = pageNumber(search);
  const filter = { member: search.member ?? '', type: search.type ?? '' };
  return queryOptions({
    queryKey: [...adminKeys.log(viewer), filter, page],
    queryFn: () =>
      pb.send<SecurityLogAnswer>('/api/admin/security-events', {
        query: { ...filter, page, perPage: PER_PAGE, ...(page > 1 ? { skipTotal: 1 } : {}) },
      }),
  });
};

const memberPath = (id: string) => `/api/admin/members/${encodeURIComponent(id)}`;

export async function disableMember(id: string): Promise<Member> {
  return pb.send(`${memberPath(id)}/disable`, { method: 'POST' });
}

export async function enableMember(id: string): Promise<Member> {
  return pb.send(`${memberPath(id)}/enable`, { method: 'POST' });
}

export async function setOperator(id: string, operator: boolean): Promise<Member> {
  return pb.send(`${memberPath(id)}/operator`, { method: operator ? 'POST' : 'DELETE' });
}

/** How many codes Give 5 More Codes gives. */
export const CODES_PER_GIFT = 5;

export async function giveCodes(id: string): Promise<void> {
  await pb.send<GivenCodesAnswer>(`${memberPath(id)}/invites`, {
    method: 'POST',
    body: { count: CODES_PER_GIFT },
  });
}

export async function revokeCode(codeId: string): Promise<void> {
  await pb.send(`/api/admin/invite-codes/${encodeURIComponent(codeId)}`, { method: 'DELETE' });
}

export async function resendVerification(id: string): Promise<void> {
  await pb.send(`${memberPath(id)}/resend-verification`, { method: 'POST' });
}

/** Turns off their two-step sign-in and removes their passkeys (they lost their phone). */
export async function resetTwoStep(id: string): Promise<Member> {
  return pb.send(`${memberPath(id)}/reset-two-step`, { method: 'POST' });
}

export async function deleteMember(id: string): Promise<void> {
  await pb.send(memberPath(id), { method: 'DELETE' });
}

/** The Members table's bulk actions (POST /api/admin/members/bulk). */
export type BulkAction =
  'disable' | 'enable' | 'resend-verification' | 'password-reset' | 'mark-verified';

/** The most members one bulk action takes (the server's cap). */
export const MAX_BULK = 200;

export type BulkResult = BulkAnswer;

export async function bulkMembers(action: BulkAction, ids: string[]): Promise<BulkResult> {
  return pb.send<BulkResult>('/api/admin/members/bulk', {
    method: 'POST',
    body: { action, ids },
  });
}

/** Mails `email` a sign-up link with a new invite code of the operator's. */
export async function inviteByEmail(email: string): Promise<InviteSentAnswer> {
  return pb.send<InviteSentAnswer>('/api/admin/invite-email', {
    method: 'POST',
    body: { email },
  });
}

/**
 * Downloads the members `search` picks as CSV, in its order: a link the browser saves as it
 * arrives (the server streams it), authorized by a file token in its address (docs/api.md).
 */
export async function downloadMembersCsv(search: MembersSearch): Promise<void> {
  const token = await pb.files.getToken();
  const query = new URLSearchParams({ ...membersFilter(search), token });
  const link = document.createElement('a');
  link.href = `/api/admin/members.csv?${query.toString()}`;
  link.download = '';
  link.rel = 'noopener';
  document.body.append(link);
  try {
    link.click();
  } finally {
    link.remove();
  }
}

export async function retryMail(mailId: string): Promise<void> {
  await pb.send(`/api/admin/outbox/${encodeURIComponent(mailId)}/retry`, { method: 'POST' });
}

export async function sendTestMail(): Promise<void> {
  await pb.send('/api/admin/test-mail', { method: 'POST', body: {} });
}

/** The member whose email is exactly `email`, if any (the Security Log's member filter). */
export async function findMemberByEmail(email: string): Promise<Member | null> {
  const wanted = email.trim().toLowerCase();
  const list = await pb.send<MembersAnswer>('/api/admin/members', {
    query: { q: wanted, perPage: 100, skipTotal: 1 },
  });
  return list.items.find((m) => m.email === wanted) ?? null;
}

/** A console action's failure in words: the server's message, else `fallback`. */
export function adminErrorMessage(err: unknown, fallback: string): string {
  if (statusOf(err) === 403 && !serverText(err))
    return t`Only operators can use the operator console.`;
  return serverText(err) ?? fallback;
}
