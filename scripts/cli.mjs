/* global process */
// `npm run cli -- …`: the operator commands (server/src/cli.ts). In a checkout with the
// development tools the CLI runs from its sources through tsx, so it is always current without a
// build; a production install (`npm ci --omit=dev`: no tsx, perhaps no sources) runs the built
// bundle, server/dist/cli.js, which `npm run build` writes beside the server.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const source = path.join(root, 'server/src/cli.ts');
const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
const built = path.join(root, 'server/dist/cli.js');

const entry =
  fs.existsSync(source) && fs.existsSync(tsx)
    ? [tsx, source]
    : fs.existsSync(built)
      ? ['--enable-source-maps', built]
      : undefined;
if (!entry) {
  process.stderr.write('The CLI is not built: run `npm install` and `npm run build` first.\n');
  process.exit(1);
}
const run = spawnSync(process.execPath, [...entry, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
