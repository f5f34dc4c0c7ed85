import { queryOptions } from '@tanstack/react-query';
import type { MeAnswer } from '../../../contract/admin';
import { pb } from './pb';

/**
 * Who the signed-in member is to the server (GET /api/gatehouse/me): whether they are an operator.
 * The header shows Admin by it and the console decides with it; it is kept under the console's
 * keys (`['admin', viewer, 'me']`, features/admin/api.ts `adminKeys`), so what clears the
 * console's data for a viewer clears this too.
 */
export const meQueryOptions = (viewer: string) =>
  queryOptions({
    queryKey: ['admin', viewer, 'me'] as const,
    queryFn: () => pb.send<MeAnswer>('/api/gatehouse/me', {}),
    staleTime: 60_000,
  });
