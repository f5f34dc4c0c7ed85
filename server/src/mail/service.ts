/**
 * What mail/ offers other features, its one public module: queue a mail in the caller's
 * transaction (the worker sends it), compose one in the app's template, and the outbox as the
 * operator sees it.
 */
export {
  deleteQueuedMailOf,
  enqueueMail,
  listQueuedMail,
  mailStats,
  retryMailNow,
} from './outbox.js';
export { composeMail, type MailContent } from './compose.js';
