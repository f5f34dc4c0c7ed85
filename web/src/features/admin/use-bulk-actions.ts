import { plural, t } from '@lingui/core/macro';
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { adminErrorMessage, adminKeys, bulkMembers, type BulkAction, type BulkResult } from './api';
import type { Question } from './confirm-action';

/** The Members table's bulk actions, in the order of their buttons, with each button's name. */
export const BULK_BUTTONS = (): ReadonlyArray<{ action: BulkAction; label: string }> => [
  { action: 'disable', label: t`Disable` },
  { action: 'enable', label: t`Enable` },
  { action: 'resend-verification', label: t`Resend Verification` },
  { action: 'password-reset', label: t`Send Password Reset` },
  { action: 'mark-verified', label: t`Mark Verified` },
];

const members = (n: number) => plural(n, { one: '# member', other: '# members' });

/** The question a bulk action asks first, naming how many members it is for. */
export function bulkQuestion(action: BulkAction, count: number): Question {
  const n = members(count);
  switch (action) {
    case 'disable':
      return {
        title: t`Disable ${n}?`,
        description: t`They are signed out everywhere and cannot sign in until their accounts are enabled again. Operators, the initial user and your own account are skipped.`,
        confirm: t`Yes, Disable`,
        busy: t`Disabling...`,
      };
    case 'enable':
      return {
        title: t`Enable ${n}?`,
        description: t`They can sign in again, and their unused invite codes work again.`,
        confirm: t`Yes, Enable`,
        busy: t`Enabling...`,
        harmless: true,
      };
    case 'resend-verification':
      return {
        title: t`Resend verification to ${n}?`,
        description: t`Each unverified member gets a new verification email. Members already verified are skipped.`,
        confirm: t`Yes, Send`,
        busy: t`Sending...`,
        harmless: true,
      };
    case 'password-reset':
      return {
        title: t`Send a password reset link to ${n}?`,
        description: t`Each gets an email with a link to choose a new password; it expires in 30 minutes and their password stays until they use it. Disabled members are skipped.`,
        confirm: t`Yes, Send`,
        busy: t`Sending...`,
        harmless: true,
      };
    case 'mark-verified':
      return {
        title: t`Mark ${n} verified?`,
        description: t`Their email addresses count as confirmed without the link in the mail being opened. Do this only for addresses you know are theirs.`,
        confirm: t`Yes, Mark Verified`,
        busy: t`Saving...`,
      };
  }
}

/** What a bulk action did, in words: how many it did, and each member it skipped and why. */
export interface BulkNotice {
  summary: string;
  skipped: string[];
}

export function bulkOutcome(
  action: BulkAction,
  result: BulkResult,
  emailOf: (id: string) => string,
): BulkNotice {
  const n = members(result.done);
  const done = {
    disable: t`Disabled ${n}.`,
    enable: t`Enabled ${n}.`,
    'resend-verification': t`Sent verification emails to ${n}.`,
    'password-reset': t`Sent password reset links to ${n}.`,
    'mark-verified': t`Marked ${n} verified.`,
  }[action];
  const skipped = result.results
    .filter((r) => r.result === 'skipped')
    .map((r) => `${emailOf(r.id)}: ${r.reason ?? 'skipped'}`);
  return {
    summary: result.skipped > 0 ? `${done} ${skippedLine(members(result.skipped))}` : done,
    skipped,
  };
}

/**
 * The bulk actions on the selected members, one at a time: the question (`ask`, then `confirm` or
 * `cancel`), the action under way, and what the last one said (`notice` or `error`). The server
 * asks for "Confirm it's you" as for a single action (lib/pb.ts asks it, then goes on).
 */
export function useBulkActions(
  viewer: string,
  selected: ReadonlyArray<{ id: string; email: string }>,
  onDone: () => void,
) {
  const queryClient = useQueryClient();
  const [asked, setAsked] = useState<{ action: BulkAction; question: Question } | null>(null);
  const [running, setRunning] = useState(false);
  const [notice, setNotice] = useState<BulkNotice | null>(null);
  const [error, setError] = useState<string | null>(null);

  function ask(action: BulkAction) {
    if (running || selected.length === 0) return;
    setNotice(null);
    setError(null);
    setAsked({ action, question: bulkQuestion(action, selected.length) });
  }

  async function confirm() {
    if (!asked || running) return;
    const { action } = asked;
    const emails = new Map(selected.map((m) => [m.id, m.email]));
    setRunning(true);
    try {
      const result = await bulkMembers(
        action,
        selected.map((m) => m.id),
      );
      setNotice(bulkOutcome(action, result, (id) => emails.get(id) ?? id));
      onDone();
    } catch (err) {
      setError(
        adminErrorMessage(err, t`The action failed. Nothing was changed. Please try again.`),
      );
    } finally {
      setRunning(false);
      setAsked(null);
      await queryClient.invalidateQueries({ queryKey: adminKeys.of(viewer) });
    }
  }

  return {
    asked,
    running,
    notice,
    error,
    ask,
    confirm: () => void confirm(),
    cancel: () => setAsked(null),
  };
}

/** "Skipped 2 members:", before the list of who was skipped and why. */
const skippedLine = (who: string) => t`Skipped ${who}:`;
