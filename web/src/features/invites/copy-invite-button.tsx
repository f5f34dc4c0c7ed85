import { useEffect, useRef, useState } from 'react';
import { Button } from '../../components/ui/button';
import { inviteLink } from '../../lib/app-config';

export const COPIED_MS = 2000;

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Pages served over plain http (not localhost) have no async clipboard API.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('Copy failed');
}

export function CopyInviteButton({
  code,
  describedBy,
  onError,
}: {
  code: string;
  describedBy?: string;
  onError: (link: string) => void;
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
      {copied ? 'Copied' : 'Copy Invite'}
    </Button>
  );
}
