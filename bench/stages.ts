import { resources } from '../examples/demo/resources.js';
import { ErrorBag } from '../src/errors/error-bag.js';
import { authorize } from '../src/plan/authorize.js';
import { compileEndpoint } from '../src/plan/endpoint.js';
import { parseListQuery } from '../src/request/parse.js';
import { resolveResources } from '../src/resource/resolve.js';
import { connect } from '../src/sql/connect.js';
import { postgres } from '../src/sql/dialects/postgres.js';
import { PreparedQueries } from '../src/sql/prepared.js';
import config from './bench-config.js';

/**
 * The pure stages for a Q2-like request: parse → authorize → both SQL statements (count and page) with
 * their parameters, measured twice: with every request's shape compiled anew (`cold`, the first request
 * of a shape) and with the endpoint's prepared shapes (every later request of that shape). No database
 * is queried (a PostgreSQL Kysely instance only compiles).
 */
export function measureStages(iterations = 20_000): void {
  const { db } = connect('postgres://postgres@127.0.0.1:5432/postgres');
  const cold = stagesOf(db, 0, iterations);
  const prepared = stagesOf(db, undefined, iterations);
  console.log(
    `pure stages (parse → authorize → count + page SQL) for Q2, median µs per request (5 rounds of ${iterations / 5}; budget 50 µs): ${cold.toFixed(1)} compiled per request, ${prepared.toFixed(1)} with the prepared shape`,
  );
  void db.destroy();
}

function stagesOf(
  db: ReturnType<typeof connect>['db'],
  maxShapes: number | undefined,
  iterations: number,
): number {
  const query = 'filter[status]=active&filter[score][gte]=80&filter[name][contains]=ann&page=2';
  const endpoint = compileEndpoint(
    config.endpoints[0] as (typeof config.endpoints)[0],
    resolveResources(resources),
    undefined,
  );
  const queries = new PreparedQueries(db, postgres, endpoint.policy, endpoint.resource, maxShapes);
  const once = () => {
    const errors = new ErrorBag();
    const plan = authorize(parseListQuery(query, endpoint.limits, errors), endpoint, errors);
    if (!plan) throw new Error(JSON.stringify(errors.toEnvelope()));
    return (
      queries.count(plan, undefined).parameters.length +
      queries.rows(plan, { limit: 15, offset: 15 }, undefined).parameters.length
    );
  };
  for (let i = 0; i < 2000; i++) once();
  const samples: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations / 5; i++) once();
    samples.push(Number(process.hrtime.bigint() - started) / 1000 / (iterations / 5));
  }
  samples.sort((a, b) => a - b);
  return samples[2] as number;
}

if (import.meta.url === `file://${process.argv[1]}`) measureStages();
