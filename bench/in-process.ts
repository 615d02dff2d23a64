/**
 * npm run bench:in-process [-- --users 100000 --requests 100000 --rounds 6]
 *
 * The service's own work per request without HTTP or a database server: `service.handle` of read-one
 * (Q12) and of a sparse fieldset page (Q13) on the SQLite dataset, 10 callers at a time, against the
 * same work written by hand (the statement, the records, the envelope, the JSON and its ETag). Both
 * run in this one process, alternated, so the CPU time per request moves by a few per cent where a
 * round of `npm run bench` moves by ten: the measure to tell whether a change of a microsecond helped.
 */
import { hash } from 'node:crypto';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { createService } from '../src/core/service.js';
import { simplePage } from '../src/respond/simple-and-cursor.js';
import { connect } from '../src/sql/connect.js';
import { sqliteFilename } from '../src/sql/dialects/sqlite.js';
import config from './bench-config.js';
import { prepareEngineDataset } from './dataset.js';
import { benchQueries, READ_ONE_ID } from './queries.js';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '6' },
  },
});

const url = await prepareEngineDataset('sqlite', Number(values.users));
const service = await createService({ config, connection: connect(url) });
const database = new Database(sqliteFilename(url), { readonly: true });

const COLUMNS =
  'u.id, u.name, u.email, u.status, u.score, u.balance, u.is_admin, u.birthday, u.settings, u.department_id, u.created_at, u.updated_at, u.deleted_at';
/** SQLite's stored instant text → ISO with milliseconds, as the service answers it. */
const iso = (text: unknown) =>
  typeof text === 'string'
    ? `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${text.slice(20)}000`.slice(0, 3)}Z`
    : null;
type Row = Record<string, unknown>;

const readOne = database.prepare(`select ${COLUMNS} from users u where u.id = ? and u.deleted_at is null`);
const sparse = database.prepare(
  'select u.id, u.name, u.email from users u where u.deleted_at is null order by u.created_at desc, u.id desc limit ?',
);
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
    const row = readOne.get(READ_ONE_ID) as Row;
    const record = {
      ...row,
      is_admin: row.is_admin === 1,
      settings: JSON.parse(row.settings as string),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      deleted_at: iso(row.deleted_at),
    };
    return written(record).text;
  },
  Q13: async () => {
    const rows = sparse.all(16) as Row[];
    const [path, rawQuery = ''] = benchQueries.Q13.split('?');
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
/** The service's answer of a URL, as a host would ask for it. */
const served = (path: string) => async () => {
  const answer = await service.handle({
    method: 'GET',
    url: path,
    headers: { host: HOST, accept: '*/*', 'user-agent': 'bench' },
    protocol: 'http',
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
  const service = served(benchQueries[id as keyof typeof cases]);
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
