/* global console, process */
// `npm run bench`            the load benchmark (about 1 minute)
// `npm run bench -- page`    the page benchmark: JS size of / and Lighthouse scores
// `npm run bench -- admin`   the operator console's reads at 1,000 and 1,000,000 members
// `npm run bench -- restart` the restart benchmark: `npm start` to the first 200 (built sources)
// `npm run bench -- soak`    the soak: mixed traffic at ~70 % of capacity for SOAK_MINUTES (10)
// `npm run bench -- realtime` 10,000 realtime streams on one instance; an event across instances
// `npm run bench -- cluster` two instances on PostgreSQL behind nginx against hello-world behind it
// `npm run bench -- compare` server/dist against an earlier build (BENCH_BASELINE): CPU per answer
// `npm run bench -- all`     load and page
// Figures are printed and written to bench/results/latest.json. Run `npm run build` first.
import { machine, requireBuild, saveResults } from './lib.mjs';

/** Each benchmark: its module and the function that runs it and returns its figures. */
const BENCHMARKS = {
  load: ['./load.mjs', 'runLoad'],
  page: ['./page.mjs', 'runPage'],
  admin: ['./admin.mjs', 'runAdmin'],
  restart: ['./restart.mjs', 'runRestart'],
  soak: ['./soak.mjs', 'runSoak'],
  realtime: ['./realtime.mjs', 'runRealtime'],
  cluster: ['./cluster.mjs', 'runCluster'],
  compare: ['./compare.mjs', 'runCompare'],
};

const what = process.argv[2] ?? 'load';
const chosen = what === 'all' ? ['load', 'page'] : [what];
if (!chosen.every((name) => name in BENCHMARKS)) {
  console.error(
    `Unknown benchmark "${what}": use ${Object.keys(BENCHMARKS).join(', ')} (load is the default) or all.`,
  );
  process.exit(2);
}

requireBuild();
const host = machine();
console.log(`Machine: ${host.cpus} × ${host.cpuModel}, ${host.memoryGiB} GiB, Node ${host.node}\n`);

for (const name of chosen) {
  const [module, run] = BENCHMARKS[name];
  const results = await (await import(module))[run]();
  const file = await saveResults(name, {
    date: new Date().toISOString(),
    machine: host,
    ...results,
  });
  console.log(`\nSaved to ${file}\n`);
}
