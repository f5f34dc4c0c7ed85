import { useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCurrentUser } from '../lib/auth';
import { avatarUrl, fileTokenQueryOptions } from '../lib/file-token';
import { cn } from './ui/cn';

/** What an avatar needs of a member (a users record, or an answer that names one). */
export interface AvatarMember {
  id: string;
  name?: string;
  email?: string;
  /** The avatar's file name, '' when none. */
  avatar?: string;
}

const SIZES = {
  sm: { box: 'size-7 text-xs', thumb: '100x100' },
  md: { box: 'size-10 text-sm', thumb: '100x100' },
  lg: { box: 'size-24 text-2xl', thumb: '200x200' },
} as const;

/** Up to two letters for a member without a photo: of the name's first and last word, else of the email. */
export function initialsOf(member: Pick<AvatarMember, 'name' | 'email'>): string {
  const words = (member.name ?? '').trim().split(/\s+/).filter(Boolean);
  const letters =
    words.length > 0
      ? [words[0], words.length > 1 ? words[words.length - 1] : undefined]
      : [member.email?.trim()];
  const initials = letters
    .map((word) => (word ? [...word][0] : ''))
    .join('')
    .toUpperCase();
  return initials || '?';
}

/**
 * A member's face: a thumb of their avatar (a protected file, so its URL carries the viewer's
 * file token), or their initials when they have none, the token is not there yet or the image
 * does not load. Decorative by default (the name or email stands beside it); `alt` says it when
 * it is the only word. `src`: a picture to show instead (a photo chosen, not saved yet).
 */
export function Avatar({
  member,
  size = 'md',
  alt = '',
  src,
  className,
}: {
  member: AvatarMember;
  size?: keyof typeof SIZES;
  alt?: string;
  src?: string;
  className?: string;
}) {
  const { box, thumb } = SIZES[size];
  const viewer = useCurrentUser()?.id ?? '';
  const hasFile = Boolean(member.avatar) && src === undefined;
  const token = useQuery({ ...fileTokenQueryOptions(viewer), enabled: hasFile && viewer !== '' });
  const queryClient = useQueryClient();
  const [failed, setFailed] = useState<string | null>(null);
  const retries = useRef(0);
  const url =
    src ??
    (hasFile && token.data
      ? avatarUrl({ id: member.id, avatar: member.avatar! }, token.data, thumb)
      : null);
  const shape = cn('inline-flex shrink-0 rounded-full', box, className);

  if (url && url !== failed) {
    return (
      <img
        src={url}
        alt={alt}
        className={cn(shape, 'bg-slate-200 object-cover dark:bg-slate-700')}
        onError={() => {
          setFailed(url);
          // A token whose session ended, or that ran out: one more try with a fresh one.
          if (src === undefined && retries.current++ < 1) {
            void queryClient.invalidateQueries({
              queryKey: fileTokenQueryOptions(viewer).queryKey,
            });
          }
        }}
      />
    );
  }
  return (
    <span
      role={alt ? 'img' : undefined}
      aria-label={alt || undefined}
      aria-hidden={alt ? undefined : true}
      className={cn(
        shape,
        'items-center justify-center bg-slate-200 font-semibold text-slate-800 select-none dark:bg-slate-700 dark:text-slate-100',
      )}
    >
      {initialsOf(member)}
    </span>
  );
}
