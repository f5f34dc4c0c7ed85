// `npm start`: builds when a source changed since the last build (build-if-stale.mjs), then runs
// the built server in this same process, so a restart pays for one Node start, not two.
import { buildIfStale } from './build-if-stale.mjs';

buildIfStale();
await import('../server/dist/main.js');
