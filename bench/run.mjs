/* global console, process */
// `npm run bench`            the load benchmark (about 1 minute)
// `npm run bench -- page`    the page benchmark: JS size of / and Lighthouse scores
// `npm run bench -- admin`   the operator console's reads at 1,000 and 1,000,000 members
// `npm run bench -- restart` the restart benchmark: `npm start` to the first 200 (built sources)
// `npm run bench -- soak`    the soak: mixed traffic at ~70 % of capacity for SOAK_MINUTES (10)
// `npm run bench -- realtime` 10,000 realtime streams on one instance; an event across instances
// `npm run bench -- all`     load and page
// Figures are printed and written to bench/results/latest.json. Run `npm run build` first.
import { machine, requireBuild, saveResults } from './lib.mjs';

const what = process.argv[2] ?? 'load';
if (!['load', 'page', 'admin', 'restart', 'soak', 'realtime', 'all'].includes(what)) {
  console.error(
    `Unknown benchmark "${what}": use load (default), page, admin, restart, soak, realtime or all.`,
  );
  process.exit(2);
}

requireBuild();
const host = machine();
console.log(`Machine: ${host.cpus} × ${host.cpuModel}, ${host.memoryGiB} GiB, Node ${host.node}\n`);

if (what === 'load' || what === 'all') {
  const { runLoad } = await import('./load.mjs');
  const results = await runLoad();
  const file = await saveResults('load', {
    date: new Date().toISOString(),
    machine: host,
    ...results,
  });
  console.log(`\nSaved to ${file}\n`);
}
if (what === 'page' || what === 'all') {
  const { runPage } = await import('./page.mjs');
  const results = await runPage();
  const file = await saveResults('page', {
    date: new Date().toISOString(),
    machine: host,
    ...results,
  });
  console.log(`\nSaved to ${file}\n`);
}
if (what === 'admin') {
  const { runAdmin } = await import('./admin.mjs');
  const results = await runAdmin();
  const file = await saveResults('admin', {
    date: new Date().toISOString(),
    machine: host,
    ...results,
  });
  console.log(`\nSaved to ${file}\n`);
}
if (what === 'restart') {
  const { runRestart } = await import('./restart.mjs');
  const results = await runRestart();
  const file = await saveResults('restart', {
    date: new Date().toISOString(),
    machine: host,
    ...results,
  });
  console.log(`\nSaved to ${file}\n`);
}
if (what === 'soak') {
  const { runSoak } = await import('./soak.mjs');
  const results = await runSoak();
  const file = await saveResults('soak', {
    date: new Date().toISOString(),
    machine: host,
    ...results,
  });
  console.log(`\nSaved to ${file}\n`);
}
if (what === 'realtime') {
  const { runRealtime } = await import('./realtime.mjs');
  const results = await runRealtime();
  const file = await saveResults('realtime', {
    date: new Date().toISOString(),
    machine: host,
    ...results,
  });
  console.log(`\nSaved to ${file}\n`);
}
