import { t } from '@lingui/core/macro';
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import {
  adminErrorMessage,
  adminKeys,
  CODES_PER_GIFT,
  deleteMember,
  disableMember,
  enableMember,
  giveCodes,
  resendVerification,
  resetTwoStep,
  revokeCode,
  setOperator,
  type MemberDetail,
} from './api';
import type { Question } from './confirm-action';
import { questionFor, type Asked } from './member-questions';

/** The action under way (its button shows a busy label; the others wait). */
type Running =
  | 'disable'
  | 'enable'
  | 'resend'
  | 'codes'
  | 'operator'
  | 'reset'
  | 'delete'
  | 'view-as'
  | { revoke: string }
  | null;

/**
 * The operator's actions on a member's page, one at a time: the question an action asks first
 * (`ask`, then `confirm` or `cancel`), the action under way, and what the last one said (`notice`
 * or `error`, for the page's live regions). The page's cards share it: the Actions card, and the
 * Invite Codes card (give codes, revoke one).
 */
export function useMemberActions(viewer: string, member: MemberDetail) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [running, setRunning] = useState<Running>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The question is put in words when asked: the member's page may refresh while it is open.
  const [asked, setAsked] = useState<{ action: Asked; question: Question } | null>(null);

  async function run(
    action: Exclude<Running, null>,
    request: () => Promise<unknown>,
    done: string,
    failed: string,
  ): Promise<boolean> {
    if (running) return false;
    setRunning(action);
    setNotice(null);
    setError(null);
    try {
      await request();
    } catch (err) {
      setError(adminErrorMessage(err, failed));
      setRunning(null);
      await queryClient.invalidateQueries({ queryKey: adminKeys.member(viewer, member.id) });
      return false;
    }
    await queryClient.invalidateQueries({ queryKey: adminKeys.of(viewer) });
    setRunning(null);
    setNotice(done);
    return true;
  }

  /** Opens the question of an action; nothing is sent until the operator confirms. */
  function ask(action: Asked) {
    if (running) return;
    setNotice(null);
    setError(null);
    setAsked({ action, question: questionFor(action, member) });
  }

  /**
   * View as member (lib/view-as.ts): this tab becomes the member's until Stop; the console's data
   * is dropped and Home opens as they see it. A refusal shows on the page like any other.
   */
  async function viewAs() {
    if (running) return;
    setRunning('view-as');
    setError(null);
    try {
      const { startViewingAs } = await import('../../lib/view-as');
      await startViewingAs(member.id);
    } catch (err) {
      setError(adminErrorMessage(err, t`Failed to view as the member. Please try again.`));
      setRunning(null);
      setAsked(null);
      return;
    }
    queryClient.clear();
    await navigate({ to: '/home' });
  }

  /** Runs the confirmed action; the question closes once it is done or failed. */
  async function confirm(action: Asked) {
    const email = member.email;
    if (typeof action === 'object') {
      const code = action.revoke;
      await run(
        { revoke: code.id },
        () => revokeCode(code.id),
        t`Invite code ${code.code} has been revoked.`,
        t`Failed to revoke the invite code. Please try again.`,
      );
    } else if (action === 'disable') {
      await run(
        'disable',
        () => disableMember(member.id),
        `${email} has been disabled and signed out everywhere.`,
        t`Failed to disable the account. Please try again.`,
      );
    } else if (action === 'enable') {
      await run(
        'enable',
        () => enableMember(member.id),
        `${email} has been enabled and can sign in again.`,
        t`Failed to enable the account. Please try again.`,
      );
    } else if (action === 'make-operator' || action === 'remove-operator') {
      const make = action === 'make-operator';
      await run(
        'operator',
        () => setOperator(member.id, make),
        make ? `${email} is now an operator.` : `${email} is no longer an operator.`,
        t`Failed to change the operator role. Please try again.`,
      );
    } else if (action === 'view-as') {
      await viewAs();
      return;
    } else if (action === 'reset') {
      await run(
        'reset',
        () => resetTwoStep(member.id),
        member.waysIn.password
          ? t`Two-step sign-in of ${email} has been reset. They can sign in with their password alone.`
          : t`Two-step sign-in of ${email} has been reset. They can sign in with their connected account alone.`,
        t`Failed to reset two-step sign-in. Please try again.`,
      );
    } else {
      const deleted = await run(
        'delete',
        () => deleteMember(member.id),
        `${email} has been deleted.`,
        t`Failed to delete the account. Please try again.`,
      );
      if (deleted) {
        queryClient.removeQueries({ queryKey: adminKeys.member(viewer, member.id) });
        await navigate({ to: '/admin' });
        return;
      }
    }
    setAsked(null);
  }

  return {
    notice,
    error,
    asked,
    ask,
    confirm,
    cancel: () => setAsked(null),
    /** An action is under way: every action's button waits. */
    busy: running !== null,
    isRunning: (action: Exclude<Running, null>) =>
      typeof action === 'string' ? running === action : false,
    isRevoking: (codeId: string) =>
      typeof running === 'object' && running !== null && running.revoke === codeId,
    /** Resend Verification: it asks nothing first. */
    resend: () =>
      run(
        'resend',
        () => resendVerification(member.id),
        t`Verification email sent to ${member.email}.`,
        t`Failed to resend the verification email. Please try again.`,
      ),
    /** Give 5 More Codes: it asks nothing first. */
    giveCodes: () =>
      run(
        'codes',
        () => giveCodes(member.id),
        t`Gave ${CODES_PER_GIFT} new invite codes to ${member.email}.`,
        t`Failed to give invite codes. Please try again.`,
      ),
  };
}

export type MemberActions = ReturnType<typeof useMemberActions>;
