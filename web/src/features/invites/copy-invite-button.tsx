import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useRef, useState } from 'react';
import { Button } from '../../components/ui/button';
import { appName, inviteLink } from '../../lib/app-config';
import { copyText } from '../../lib/clipboard';

export const COPIED_MS = 2000;

export function CopyInviteButton({
  code,
  label = t`Copy Invite`,
  describedBy,
  onError,
  onCopied,
}: {
  code: string;
  /** What the button reads before a copy (Profile's "Copy Invite", Home's "Copy Link"). */
  label?: string;
  describedBy?: string;
  onError: (link: string) => void;
  /** After a copy that worked (the list marks the code for the visit). */
  onCopied?: () => void;
}) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function onCopy() {
    const link = inviteLink(code);
    try {
      await copyText(link);
    } catch {
      onError(link);
      return;
    }
    setCopied(true);
    onCopied?.();
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPIED_MS);
  }

  return (
    <Button
      variant="secondary"
      className="min-w-32 shrink-0"
      aria-describedby={describedBy}
      onClick={onCopy}
    >
      {copied ? t`Copied` : label}
    </Button>
  );
}

/** Whether this browser offers the system share sheet for a link (phones, mostly). */
export function canShareLinks(): boolean {
  if (typeof navigator === 'undefined' || typeof navigator.share !== 'function') return false;
  try {
    return navigator.canShare ? navigator.canShare({ url: inviteLink('CODE') }) : true;
  } catch {
    return false;
  }
}

/** Opens the system share sheet with the invite link (only where `canShareLinks()`). */
export function ShareInviteButton({
  code,
  describedBy,
  onShared,
}: {
  code: string;
  describedBy?: string;
  onShared: () => void;
}) {
  async function onShare() {
    try {
      await navigator.share({
        title: t`Join me on ${appName()}`,
        text: t`Here is an invite to ${appName()}.`,
        url: inviteLink(code),
      });
    } catch {
      // Closed without sharing, or refused: nothing was sent, nothing to say.
      return;
    }
    onShared();
  }
  return (
    <Button
      variant="secondary"
      className="shrink-0"
      aria-describedby={describedBy}
      onClick={onShare}
    >
      <Trans>Share</Trans>
    </Button>
  );
}
