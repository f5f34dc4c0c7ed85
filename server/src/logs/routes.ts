import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as C from '../../../contract/logs.js';
import type { AppContext } from '../core/context.js';
import { NotFoundError } from '../core/errors.js';
import { requireSuperuser } from '../http/auth.js';
import { listAnswer, listQuery } from '../http/list.js';
import { type LogEntry, parseEntryId, unpackBatch } from './entries.js';
import {
  BadQueryError,
  badListQuery,
  badStatsFilter,
  type LogFilter,
  readFilter,
  readSort,
} from './filter.js';
import type { RequestLog } from './request-log.js';
import { batchesById, countEntries, hourlyCounts, scanBatches } from './store.js';

/** PocketBase's largest page of a list. */
const MAX_PER_PAGE = 1000;

/**
 * PocketBase's logs API (apis/logs.go) for operators: the list, one entry, and entries per hour
 * (schemas in contract/logs.ts). Each read first writes what this instance has buffered, so an
 * operator sees the requests made just before; other instances' entries arrive within their
 * flush interval (a second). Without a filter, counts and pages come from the batches' sizes;
 * with one, the batches (those its dates allow) are read and each entry tested.
 */
export function logsRoutes(ctx: AppContext, requestLog: RequestLog) {
  const store = requestLog.store;

  /** The page of entries `offset`… in `order`, and how many pass the filter (unless skipped). */
  async function page(
    order: 'asc' | 'desc',
    filter: LogFilter | undefined,
    offset: number,
    limit: number,
    skipTotal: boolean,
  ): Promise<{ items: LogEntry[]; total: number | undefined }> {
    const items: LogEntry[] = [];
    if (!filter) {
      // Whole batches before the page are skipped by their sizes alone.
      let seen = 0;
      const wanted: Array<{ id: number; skip: number }> = [];
      for await (const batch of scanBatches(store, order, {}, false)) {
        if (seen + batch.n > offset)
          wanted.push({ id: batch.id, skip: Math.max(offset - seen, 0) });
        seen += batch.n;
        if (seen >= offset + limit) break;
      }
      const batches = new Map(
        (
          await batchesById(
            store,
            wanted.map((w) => w.id),
          )
        ).map((b) => [b.id, b]),
      );
      for (const { id, skip } of wanted) {
        const entries = unpackBatch(batches.get(id)!);
        if (order === 'desc') entries.reverse();
        items.push(...entries.slice(skip, skip + limit - items.length));
      }
      return { items, total: skipTotal ? undefined : await countEntries(store) };
    }
    let matched = 0;
    for await (const batch of scanBatches(store, order, filter.bounds)) {
      const entries = unpackBatch(batch);
      if (order === 'desc') entries.reverse();
      for (const entry of entries) {
        if (!filter.test(entry)) continue;
        if (matched >= offset && items.length < limit) items.push(entry);
        matched += 1;
      }
      if (skipTotal && items.length >= limit) break;
    }
    return { items, total: skipTotal ? undefined : matched };
  }

  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/api/logs', { schema: C.listLogs }, async (request) => {
      await requireSuperuser(ctx, request);
      const list = listQuery(request.query, MAX_PER_PAGE);
      let filter;
      let order;
      try {
        filter = readFilter(request.query.filter);
        order = readSort(request.query.sort);
      } catch (error) {
        if (error instanceof BadQueryError) throw badListQuery();
        throw error;
      }
      await requestLog.flush();
      const offset = (list.page - 1) * list.perPage;
      const { items, total } = await page(order, filter, offset, list.perPage, list.skipTotal);
      return listAnswer(list, items, total);
    });

    api.get('/api/logs/stats', { schema: C.logStats }, async (request) => {
      await requireSuperuser(ctx, request);
      let filter;
      try {
        filter = readFilter(request.query.filter);
      } catch (error) {
        if (error instanceof BadQueryError) throw badStatsFilter();
        throw error;
      }
      await requestLog.flush();
      if (!filter) return hourlyCounts(store);
      const hours = new Map<string, number>();
      for await (const batch of scanBatches(store, 'asc', filter.bounds)) {
        for (const entry of unpackBatch(batch)) {
          if (!filter.test(entry)) continue;
          const hour = `${entry.created.slice(0, 13)}:00:00.000Z`;
          hours.set(hour, (hours.get(hour) ?? 0) + 1);
        }
      }
      return [...hours]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([date, total]) => ({ date, total }));
    });

    api.get('/api/logs/:id', { schema: C.viewLog }, async (request) => {
      await requireSuperuser(ctx, request);
      const place = parseEntryId(request.params.id);
      if (!place) throw new NotFoundError();
      await requestLog.flush();
      const [batch] = await batchesById(store, [place.batch]);
      const entry = batch ? unpackBatch(batch)[place.index] : undefined;
      if (!entry) throw new NotFoundError();
      return entry;
    });
  };
}
