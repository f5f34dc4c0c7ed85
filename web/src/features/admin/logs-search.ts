/**
 * The Logs screen's address-bar shape, on its own: the route reads it before the screen loads, so
 * it must not import the screen or the SDK (that would put them in the first screen's chunks).
 */

/** The methods the Logs screen's quick filter offers. */
export const LOG_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
export type LogMethod = (typeof LOG_METHODS)[number];

/** The Logs screen's search params: what the address bar keeps (read by the route). */
export interface LogsSearch {
  /** The operator's own filter, in PocketBase's grammar. */
  filter?: string;
  /** 'only': answers of 400 or more only. */
  errors?: 'only';
  method?: LogMethod;
  /** 'created': oldest first; absent: newest first. */
  sort?: 'created';
  page?: string;
}
