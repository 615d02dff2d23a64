/**
 * npm run bench:in-process [-- --engine sqlite|pg --users 100000 --requests 100000 --rounds 6]
 *
 * The service's own work per request without HTTP: `service.handle` of read-one (Q12), of a cursor
 * page (Q8) and of a sparse fieldset page (Q13), 10 callers at a time, against the same work written by hand (the statement, the
 * records, the envelope, the JSON and its ETag). Both run in this one process, alternated, so the CPU
 * time per request moves by a few per cent where a round of `npm run bench` moves by ten: the measure
 * to tell whether a change of a microsecond helped. On SQLite there is no database server at all; on
 * PostgreSQL the figure is this process's CPU (the driver's parsing included, the server's not), both
 * sides with a pool of 10. The service gets a response's signal, as from a Node host;
 * `IN_PROCESS_SIGNAL=0` leaves it out, to see what watching the client costs.
 */
import { hash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { closedBeforeAnswer } from '../src/core/exchange.js';
import { createService } from '../src/core/service.js';
import { cursorPage, simplePage } from '../src/respond/simple-and-cursor.js';
import { connect } from '../src/sql/connect.js';
import { sqliteFilename } from '../src/sql/dialects/sqlite.js';
import config from './bench-config.js';
import { prepareEngineDataset } from './dataset.js';
import { type EngineName, storedInstant } from './engines.js';
import { queriesFor, READ_ONE_ID } from './queries.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    users: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '6' },
  },
});

const engine = values.engine as EngineName;
if (engine !== 'sqlite' && engine !== 'pg') throw new Error('--engine is sqlite or pg');
const url = await prepareEngineDataset(engine, Number(values.users));
const service = await createService({ config, connection: connect(url) });

const COLUMNS =
  'u.id, u.name, u.email, u.status, u.score, u.balance, u.is_admin, u.birthday, u.settings, u.department_id, u.created_at, u.updated_at, u.deleted_at';
/** SQLite's stored instant text → ISO with milliseconds, as the service answers it. */
const iso = (text: unknown) =>
  typeof text === 'string'
    ? `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${text.slice(20)}000`.slice(0, 3)}Z`
    : null;
type Row = Record<string, unknown>;

const READ_ONE = `select ${COLUMNS} from users u where u.id = ? and u.deleted_at is null`;
/** Q8's keyset page, as bench/baseline.ts writes it for each engine. */
const AFTER = {
  sqlite: `select ${COLUMNS} from users u where u.deleted_at is null and u.created_at <= ? and (u.created_at < ? or (u.created_at = ? and u.id < ?)) order by u.created_at desc, u.id desc limit ?`,
  pg: `select ${COLUMNS} from users u where u.deleted_at is null and (u.created_at, u.id) < ($1, $2) order by u.created_at desc, u.id desc limit $3`,
};
const SPARSE =
  'select u.id, u.name, u.email from users u where u.deleted_at is null order by u.created_at desc, u.id desc limit ?';

/** The hand-written side's two reads on the engine, and the read-one row made into the API's record. */
interface HandReads {
  readOne(id: number): Promise<Row>;
  after(createdAt: string, id: number, limit: number): Promise<Row[]>;
  sparse(limit: number): Promise<Row[]>;
  /** A row's `created_at` as a cursor holds it (the stored form). */
  stored(value: unknown): unknown;
  record(row: Row): Row;
}

function sqliteReads(): HandReads {
  const database = new Database(sqliteFilename(url), { readonly: true });
  const readOne = database.prepare(READ_ONE);
  const sparse = database.prepare(SPARSE);
  const after = database.prepare(AFTER.sqlite);
  return {
    readOne: async (id) => readOne.get(id) as Row,
    after: async (createdAt, id, limit) => after.all(createdAt, createdAt, createdAt, id, limit) as Row[],
    stored: (value) => value,
    sparse: async (limit) => sparse.all(limit) as Row[],
    record: (row) => ({
      ...row,
      is_admin: row.is_admin === 1,
      settings: JSON.parse(row.settings as string),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      deleted_at: iso(row.deleted_at),
    }),
  };
}

/** As bench/baseline.ts reads PostgreSQL: pg's pool, dates as text, numerics as numbers. */
function postgresReads(): HandReads {
  pg.types.setTypeParser(1082, (value) => value);
  pg.types.setTypeParser(1700, (value) => Number.parseFloat(value));
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const numbered = (text: string) => text.replace('?', '$1');
  const readOne = numbered(READ_ONE);
  const sparse = numbered(SPARSE);
  return {
    readOne: async (id) => (await pool.query(readOne, [id])).rows[0] as Row,
    after: async (createdAt, id, limit) => (await pool.query(AFTER.pg, [createdAt, id, limit])).rows as Row[],
    stored: (value) => (value instanceof Date ? storedInstant('pg', value.toISOString()) : value),
    sparse: async (limit) => (await pool.query(sparse, [limit])).rows as Row[],
    // pg parses booleans and jsonb itself, and its `Date`s serialize as ISO instants.
    record: (row) => row,
  };
}

const reads = engine === 'pg' ? postgresReads() : sqliteReads();
/** The benchmark's URLs on this engine (Q8's cursor holds the engine's stored instant). */
const queries = queriesFor(engine);
const HOST = 'localhost:3901';

/** What a request's hand-written handler answers: the body and the headers the service sends with it. */
const written = (body: unknown) => {
  const text = JSON.stringify(body);
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    etag: `"${hash('sha1', text, 'base64url')}"`,
    'cache-control': 'no-cache',
  };
  return { text, headers };
};

const cases = {
  Q12: async () => {
    response();
    return written(reads.record(await reads.readOne(READ_ONE_ID))).text;
  },
  Q8: async () => {
    response();
    const [path, rawQuery = ''] = queries.Q8.split('?');
    const cursor = new URLSearchParams(rawQuery).get('cursor') as string;
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()).v as [string, number];
    const fetched = await reads.after(createdAt, id, 16);
    const rows = fetched.slice(0, 15);
    const encode = (d: string, row: Row | undefined) =>
      row
        ? Buffer.from(
            JSON.stringify({ s: '-created_at,-id', d, v: [reads.stored(row.created_at), row.id] }),
          ).toString('base64url')
        : null;
    const page = cursorPage(rows.map(reads.record), {
      perPage: 15,
      next: fetched.length > 15 ? encode('next', rows[rows.length - 1]) : null,
      prev: encode('prev', rows[0]),
      path: `http://${HOST}${path}`,
      rawQuery,
    });
    return written(page).text;
  },
  Q13: async () => {
    response();
    const rows = await reads.sparse(16);
    const [path, rawQuery = ''] = queries.Q13.split('?');
    const page = simplePage(rows.slice(0, 15), {
      page: 1,
      perPage: 15,
      hasMore: rows.length > 15,
      path: `http://${HOST}${path}`,
      rawQuery,
    });
    return written(page).text;
  },
};
/**
 * What a Node host passes as the request's signal: its response, whose close is the client's
 * departure. An emitter per request on both sides (the hand-written one only makes it), as each
 * request over HTTP has its response; with it the service pays for watching the client, as it does
 * over HTTP.
 */
const response = () => Object.assign(new EventEmitter(), { destroyed: false, writableFinished: false });
const SIGNAL = process.env.IN_PROCESS_SIGNAL !== '0';

/** The service's answer of a URL, as a host would ask for it. */
const served = (path: string) => async () => {
  const closing = response();
  const answer = await service.handle({
    method: 'GET',
    url: path,
    headers: { host: HOST, accept: '*/*', 'user-agent': 'bench' },
    protocol: 'http',
    ...(SIGNAL && { signal: closedBeforeAnswer(closing) }),
  });
  if (answer?.status !== 200 || typeof answer.body !== 'string')
    throw new Error(`${path}: ${answer?.status} ${String(answer?.body)}`);
  return answer.body;
};

/** The middle of the rounds (of an even count, the upper of the two). bench/run.ts parses its own
 * arguments when imported, so its `median` is not borrowed. */
const middle = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** CPU µs per call of `run`, `requests` calls by 10 callers at a time. */
async function cpuPerCall(run: () => Promise<string>, requests: number): Promise<number> {
  let started = 0;
  const caller = async () => {
    while (started++ < requests) await run();
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: 10 }, caller));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}

const requests = Number(values.requests);
console.log('| query | service µs | by hand µs | ratio | rounds |\n|---|---|---|---|---|');
for (const [id, hand] of Object.entries(cases)) {
  const service = served(queries[id as keyof typeof cases]);
  // The same bytes first, or nothing is measured.
  if ((await service()) !== (await hand()))
    throw new Error(`${id}: the service and the hand-written work differ`);
  const ratios: number[] = [];
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const a = await cpuPerCall(service, requests);
    const b = await cpuPerCall(hand, requests);
    ours.push(a);
    theirs.push(b);
    ratios.push(a / b);
  }
  // The first round warms both up; the median of the rest is the figure.
  const kept = (xs: number[]) => (xs.length > 1 ? xs.slice(1) : xs);
  console.log(
    `| ${id} | ${middle(kept(ours)).toFixed(2)} | ${middle(kept(theirs)).toFixed(2)} | ${middle(kept(ratios)).toFixed(2)} | ${Math.min(...kept(ratios)).toFixed(2)}–${Math.max(...kept(ratios)).toFixed(2)} |`,
  );
}
process.exit(0);
