/**
 * npm run bench:annotate -- DUMP [--map /tmp/perf-PID.map] [--top 30] [--sort D1mr]
 *
 * Which functions a callgrind dump's counts fall in (a dump kept by `bench:instructions --keep`), each
 * function's own counts with the compiled JavaScript named by V8's map (bench/callgrind-dump.ts).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { byFunction, readCodeMap, selfCosts } from './callgrind-dump.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    map: { type: 'string' },
    top: { type: 'string', default: '30' },
    sort: { type: 'string', default: 'Ir' },
  },
});
const dump = positionals[0];
if (!dump) throw new Error('the callgrind dump to read, as the first argument');

const { events, costs } = selfCosts(readFileSync(dump, 'utf8'));
const grouped = byFunction(
  costs,
  values.map ? readCodeMap(readFileSync(values.map, 'utf8')) : [],
  events.length,
);
const column = events.indexOf(values.sort as string);
if (column < 0) throw new Error(`--sort: one of ${events.join(', ')}`);
const totals = events.map((_, i) =>
  [...grouped.values()].reduce((sum, cost) => sum + (cost[i] as number), 0),
);
console.log(`${events.join(' | ')} | function`);
console.log(`${totals.map((total) => total.toLocaleString('en')).join(' | ')} | (all)`);
for (const [name, cost] of [...grouped]
  .sort((a, b) => (b[1][column] as number) - (a[1][column] as number))
  .slice(0, Number(values.top)))
  console.log(`${cost.map((n) => n.toLocaleString('en')).join(' | ')} | ${name}`);
