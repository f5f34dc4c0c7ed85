import { queryOptions } from '@tanstack/react-query';

/**
 * Members' avatars are protected files (docs/api.md, Files; decision 0050): an `<img>` sends no
 * Authorization header, so each URL carries a file token (`POST /api/files/token`, the SDK's
 * `pb.files.getToken()`), good for 3 minutes and only while the session that asked for it lives.
 * One token per signed-in member, shared by every avatar on the screen and asked for again once
 * it is 2 minutes old; the SDK loads with the first one.
 */
export const fileTokenQueryOptions = (viewerId: string) =>
  queryOptions({
    queryKey: ['file-token', viewerId],
    queryFn: async () => {
      const { pb } = await import('./pb');
      return pb.files.getToken();
    },
    staleTime: 2 * 60_000,
    gcTime: 3 * 60_000,
  });

/** PocketBase's thumb sizes the avatar field offers (docs/api.md) that the app shows. */
export type AvatarThumb = '100x100' | '200x200';

/** The URL of a member's avatar (a thumb of it), with the viewer's file token. */
export function avatarUrl(
  member: { id: string; avatar: string },
  token: string,
  thumb: AvatarThumb,
): string {
  const path = `/api/files/users/${encodeURIComponent(member.id)}/${encodeURIComponent(member.avatar)}`;
  return `${path}?thumb=${thumb}&token=${encodeURIComponent(token)}`;
}
