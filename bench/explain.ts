/**
 * The statements the service runs for each benchmark query, with PostgreSQL's plan for each (EXPLAIN
 * ANALYZE, the request's own bound values) on the benchmark database: which index serves each order.
 *   npm run bench:explain [-- --queries Q1,Q8] [-- --url '/api/users?…']
 * The statements are captured from the service itself (its connection's `run`), so what is explained is
 * exactly what a request sends, page cut and cursor included.
 */
import { parseArgs } from 'node:util';
import { buildService } from '../src/server/standalone.js';
import { connect } from '../src/sql/connect.js';
import type { Statement } from '../src/sql/dialect.js';
import config from './bench-config.js';
import { benchDescriptions, benchQueries } from './queries.js';

const { values } = parseArgs({
  options: {
    queries: { type: 'string', default: Object.keys(benchQueries).join(',') },
    /** Any other URL of the benchmark endpoint, explained instead of the queries. */
    url: { type: 'string' },
  },
});
const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const connection = connect(`${server}/rqs_bench`);
const captured: Statement[] = [];
const app = await buildService({
  config,
  connection: {
    ...connection,
    run: (statement) => {
      captured.push(statement);
      return connection.run(statement);
    },
  },
});

const chosen: [title: string, url: string][] = values.url
  ? [['URL', values.url]]
  : values.queries.split(',').map((q) => {
      const id = q.trim() as keyof typeof benchQueries;
      if (!benchQueries[id]) throw new Error(`unknown query "${id}"`);
      return [`${id} — ${benchDescriptions[id]}`, benchQueries[id]];
    });

for (const [title, url] of chosen) {
  captured.length = 0;
  const response = await app.inject({ url });
  if (response.statusCode !== 200) throw new Error(`${title}: ${response.statusCode} ${response.body}`);
  console.log(`\n## ${title}\n\n\`${decodeURIComponent(url)}\``);
  for (const statement of [...captured]) {
    // EXPLAIN takes bind parameters like the statement itself: the plan is the one the request got.
    const plan = await connection.run({
      sql: `explain (analyze, costs off, timing off) ${statement.sql}`,
      parameters: statement.parameters,
    });
    console.log(
      `\n\`\`\`sql\n${statement.sql}\n-- parameters: ${JSON.stringify(statement.parameters)}\n\`\`\`\n\`\`\`\n${plan
        .map((row) => row['QUERY PLAN'])
        .join('\n')}\n\`\`\``,
    );
  }
}
await app.close();
await connection.db.destroy();
