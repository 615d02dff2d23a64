/**
 * Prints the service's SQL for Q2, Q3 and Q6 with PostgreSQL's plan (EXPLAIN ANALYZE) on the
 * benchmark database: which indexes each query uses.   npm run bench:explain
 */
import { sql } from 'kysely';
import { resources } from '../examples/demo/resources.js';
import { authorize } from '../src/plan/authorize.js';
import { compileEndpoint } from '../src/plan/endpoint.js';
import { parseListQuery } from '../src/request/parse.js';
import { resolveResources } from '../src/resource/registry.js';
import { ErrorBag } from '../src/respond/error-bag.js';
import { connect } from '../src/sql/connect.js';
import { PreparedQueries } from '../src/sql/prepared.js';
import config from './bench-config.js';
import { benchQueries } from './queries.js';

const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const { db, dialect } = connect(`${server}/rqs_bench`);
const endpoint = compileEndpoint(
  config.endpoints[0] as (typeof config.endpoints)[0],
  resolveResources(resources),
  undefined,
);

for (const id of ['Q2', 'Q3', 'Q6'] as const) {
  const errors = new ErrorBag();
  const query = benchQueries[id].split('?')[1] ?? '';
  const plan = authorize(parseListQuery(query, endpoint.limits, errors), endpoint, errors);
  if (!plan) throw new Error(JSON.stringify(errors.toEnvelope()));
  const queries = new PreparedQueries(db, dialect, endpoint.policy);
  for (const [name, compiled] of [
    ['count', queries.count(plan)],
    ['page', queries.rows(plan, { limit: 15, offset: 0 })],
  ] as const) {
    console.log(
      `\n### ${id} ${name}\n\n\`\`\`sql\n${compiled.sql}\n-- parameters: ${JSON.stringify(compiled.parameters)}\n\`\`\`\n`,
    );
    const explained = await sql
      .raw<{ 'QUERY PLAN': string }>(
        `explain (analyze, costs off, timing off) ${interpolate(compiled.sql, compiled.parameters)}`,
      )
      .execute(db);
    console.log(`\`\`\`\n${explained.rows.map((row) => row['QUERY PLAN']).join('\n')}\n\`\`\``);
  }
}
await db.destroy();

/** EXPLAIN takes no bind parameters: inline them as literals (values are our own benchmark's). */
function interpolate(text: string, parameters: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const value = parameters[Number(n) - 1];
    if (typeof value === 'number') return String(value);
    if (Array.isArray(value)) return `'{${value.join(',')}}'`;
    return `'${String(value).replace(/'/g, "''")}'`;
  });
}
