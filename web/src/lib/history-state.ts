import { msg } from '@lingui/core/macro';
import { useRouterState } from '@tanstack/react-router';
import type { MessageDescriptor } from '@lingui/core';
import type { SessionEndReason } from './api-error';

/**
 * What one screen hands the next in the browser's history entry (not in the URL, so an email
 * never lands in a link or a server log): the email typed so far, and what just happened for the
 * login screen to confirm (docs/decisions/0032-app-shell-and-ways-forward.md).
 */
export type Notice = 'signed-out' | 'deleted' | 'restored';

declare module '@tanstack/react-router' {
  interface HistoryState {
    /** The email typed on the screen before (login → forgot password, and back). */
    email?: string;
    /** What the login screen confirms: a Log Out, a deleted account, a restored backup. */
    notice?: Notice;
  }
}

/** The email the previous screen carried here, or ''. */
export function useCarriedEmail(): string {
  return useRouterState({
    select: (state) => {
      const email = state.location.state.email;
      return typeof email === 'string' ? email : '';
    },
  });
}

export function useNotice(): Notice | null {
  return useRouterState({
    select: (state) => {
      const notice = state.location.state.notice;
      return notice && Object.hasOwn(NOTICE_TEXT, notice) ? notice : null;
    },
  });
}

export const NOTICE_TEXT: Record<Notice, MessageDescriptor> = {
  'signed-out': msg`You have been signed out.`,
  deleted: msg`Your account has been deleted.`,
  restored: msg`The backup was restored and everyone was signed out. Sign in again.`,
};

/** What the login screen says when the session ended elsewhere, by the server's reason. */
export const END_REASON_TEXT: Record<SessionEndReason, MessageDescriptor> = {
  'signed-out': msg`You were signed out on this device from another device.`,
  'password-changed': msg`You were signed out because your password or email was changed.`,
  disabled: msg`You were signed out because an operator disabled your account.`,
  expired: msg`Your session expired. Please sign in again.`,
};
