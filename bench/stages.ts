import { resources } from '../examples/demo/resources.js';
import { authorize } from '../src/plan/authorize.js';
import { compileEndpoint } from '../src/plan/endpoint.js';
import { parseListQuery } from '../src/request/parse.js';
import { resolveResources } from '../src/resource/registry.js';
import { ErrorBag } from '../src/respond/error-bag.js';
import { ListCompiler } from '../src/sql/compile.js';
import { connect } from '../src/sql/connect.js';
import config from './bench-config.js';

/**
 * The pure stages for a Q2-like request: parse → authorize → compile both SQL statements (count and
 * page) to text. No database is queried (a PostgreSQL Kysely instance only compiles).
 */
export function measureStages(iterations = 20_000): void {
  const query = 'filter[status]=active&filter[score][gte]=80&filter[name][contains]=ann&page=2';
  const endpoint = compileEndpoint(
    config.endpoints[0] as (typeof config.endpoints)[0],
    resolveResources(resources),
    undefined,
  );
  const { db, dialect } = connect('postgres://postgres@127.0.0.1:5432/postgres');
  const once = () => {
    const errors = new ErrorBag();
    const plan = authorize(parseListQuery(query, endpoint.limits, errors), endpoint, errors);
    if (!plan) throw new Error(JSON.stringify(errors.toEnvelope()));
    const compiler = new ListCompiler(db, dialect, plan, endpoint.policy);
    return (
      compiler.countQuery().compile().sql.length +
      compiler.rowsQuery({ limit: 15, offset: 15 }).compile().sql.length
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
  console.log(
    `pure stages (parse → authorize → compile count + page SQL) for Q2: median ${samples[2]?.toFixed(1)} µs per request (5 rounds of ${iterations / 5}; budget 50 µs)`,
  );
  void db.destroy();
}

if (import.meta.url === `file://${process.argv[1]}`) measureStages();
