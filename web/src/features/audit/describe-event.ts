import { describeUserAgent } from '../../lib/user-agent';
import type { SecurityEvent } from './api';

/** "Firefox on Linux, 203.0.113.7": where an event came from. */
export function eventSource(event: Pick<SecurityEvent, 'ip' | 'userAgent'>): string {
  const device = describeUserAgent(event.userAgent);
  return event.ip ? `${device}, ${event.ip}` : device;
}

const PLAIN: Record<string, string> = {
  sign_up: 'Account created',
  verification_requested: 'Verification email requested',
  email_verified: 'Email verified',
  password_reset_requested: 'Password reset requested',
  password_reset: 'Password reset by email',
  password_changed: 'Password changed',
  email_change_requested: 'Email change requested',
  email_changed: 'Email changed',
  session_ended: 'Signed out another device',
  sessions_ended: 'Signed out all other devices',
  signed_out: 'Signed out',
  account_deleted: 'Account deleted',
  data_exported: 'Data downloaded',
};

/** An event in plain words: "Signed in from Firefox on Linux, 203.0.113.7", "Password changed". */
export function describeEvent(event: SecurityEvent): string {
  const failed = event.outcome === 'failure';
  if (event.type === 'sign_in') {
    return `${failed ? 'Failed sign-in attempt' : 'Signed in'} from ${eventSource(event)}`;
  }
  if (event.type === 'password_changed' && failed) {
    return 'Failed password change: wrong current password';
  }
  const words = PLAIN[event.type] ?? capitalize(event.type.replace(/_/g, ' '));
  return failed ? `${words} (failed)` : words;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
