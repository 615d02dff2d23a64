/**
 * The practical limit for a Node service: node:http + pg answering the benchmark URLs with hand-written,
 * parameterised SQL and the same JSON as the service. Nothing generic: one handler per URL. Orders are
 * written as a developer who knows the table would: plain `DESC` on NOT NULL columns, `NULLS LAST`
 * where the column is nullable, a row comparison for the keyset page — using the same indexes.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { lengthAwarePage } from '../src/respond/length-aware.js';
import { cursorPage, simplePage } from '../src/respond/simple-and-cursor.js';
import { benchQueries, cursorPrefix } from './queries.js';

const { values } = parseArgs({ options: { port: { type: 'string', default: '3902' } } });
const url = process.env.DATABASE_URL as string;

pg.types.setTypeParser(1082, (value) => value); // date as YYYY-MM-DD
pg.types.setTypeParser(1700, (value) => Number.parseFloat(value)); // numeric as a number
pg.types.setTypeParser(20, (value) => Number(value)); // count(*) as a number
const pool = new pg.Pool({ connectionString: url, max: 10 });

const COLUMNS =
  'u.id, u.name, u.email, u.status, u.score, u.balance, u.is_admin, u.birthday, u.settings, u.department_id, u.created_at, u.updated_at, u.deleted_at';
const PER_PAGE = 15;
/** Newest first, ties by key: the endpoint's default order. */
const NEWEST = 'order by u.created_at desc, u.id desc';

type Row = Record<string, unknown>;
type Handler = (path: string, rawQuery: string) => Promise<unknown>;

async function paged(
  where: string,
  params: unknown[],
  page: number,
  path: string,
  rawQuery: string,
): Promise<unknown> {
  const n = params.length;
  const [count, rows] = await Promise.all([
    pool.query(`select count(*) as total from users u where u.deleted_at is null${where}`, params),
    pool.query(
      `select ${COLUMNS} from users u where u.deleted_at is null${where} ${NEWEST} limit $${n + 1} offset $${n + 2}`,
      [...params, PER_PAGE, (page - 1) * PER_PAGE],
    ),
  ]);
  return lengthAwarePage(rows.rows, { page, perPage: PER_PAGE, total: count.rows[0].total, path, rawQuery });
}

/** The first page of `pagination=simple`: one row more than the page tells whether there is a next. */
async function simple(
  where: string,
  params: unknown[],
  order: string,
  path: string,
  rawQuery: string,
): Promise<unknown> {
  const result = await pool.query(
    `select ${COLUMNS} from users u where u.deleted_at is null${where} ${order} limit $${params.length + 1}`,
    [...params, PER_PAGE + 1],
  );
  return simplePage(result.rows.slice(0, PER_PAGE), {
    page: 1,
    perPage: PER_PAGE,
    hasMore: result.rows.length > PER_PAGE,
    path,
    rawQuery,
  });
}

const Q2_WHERE = ` and u.status = $1 and u.score >= $2 and u.name ilike $3 escape '!'`;
const Q2_PARAMS = ['active', 80, '%ann%'];

const handlers: Record<string, Handler> = {
  Q1: (path, raw) => paged('', [], 1, path, raw),
  Q2: (path, raw) => paged(Q2_WHERE, Q2_PARAMS, 1, path, raw),
  Q3: (path, raw) =>
    paged(
      ' and exists (select 1 from role_user ru join roles r on r.id = ru.role_id where ru.user_id = u.id and r.name = $1)',
      ['editor'],
      1,
      path,
      raw,
    ),
  Q4: async (path, raw) => {
    const [count, page] = await Promise.all([
      pool.query('select count(*) as total from users u where u.deleted_at is null'),
      pool.query(
        `select ${COLUMNS}, (select count(*) from posts p where p.user_id = u.id and p.deleted_at is null) as posts_count
         from users u where u.deleted_at is null ${NEWEST} limit $1`,
        [PER_PAGE],
      ),
    ]);
    const rows: Row[] = page.rows;
    const roles = await pool.query(
      'select r.id, r.name, r.label, ru.user_id from roles r join role_user ru on ru.role_id = r.id where ru.user_id = any($1) order by r.id',
      [rows.map((row) => row.id)],
    );
    const byUser = new Map<unknown, Row[]>();
    for (const { user_id, ...role } of roles.rows as Row[]) {
      const list = byUser.get(user_id) ?? [];
      list.push(role);
      byUser.set(user_id, list);
    }
    const data = rows.map((row) => ({ ...row, roles: byUser.get(row.id) ?? [] }));
    return lengthAwarePage(data, {
      page: 1,
      perPage: PER_PAGE,
      total: count.rows[0].total,
      path,
      rawQuery: raw,
    });
  },
  Q5: (path, raw) => paged(' and (u.status = $1 or u.score >= $2)', ['banned', 95], 1, path, raw),
  Q6: (path, raw) => paged(` and u.settings ->> 'theme' = $1`, ['dark'], 1, path, raw),
  Q7: (path, raw) => paged('', [], 200, path, raw),
  Q8: async (path, raw) => {
    const cursor = new URLSearchParams(raw).get('cursor') as string;
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()).v as [string, number];
    const result = await pool.query(
      `select ${COLUMNS} from users u where u.deleted_at is null and (u.created_at, u.id) < ($1, $2) ${NEWEST} limit $3`,
      [createdAt, id, PER_PAGE + 1],
    );
    const rows: Row[] = result.rows.slice(0, PER_PAGE);
    const encode = (d: string, row: Row | undefined) =>
      row
        ? Buffer.from(
            JSON.stringify({ s: '-created_at,-id', d, v: [(row.created_at as Date).toISOString(), row.id] }),
          ).toString('base64url')
        : null;
    const next = result.rows.length > PER_PAGE ? encode('next', rows[rows.length - 1]) : null;
    return cursorPage(rows, {
      perPage: PER_PAGE,
      next,
      prev: encode('prev', rows[0]),
      path,
      rawQuery: raw,
    });
  },
  Q9: (path, raw) => simple(Q2_WHERE, Q2_PARAMS, NEWEST, path, raw),
  Q10: (path, raw) => simple('', [], 'order by u.birthday desc nulls last, u.id desc', path, raw),
  Q11: (path, raw) => simple('', [], 'order by u.status, u.created_at desc, u.id desc', path, raw),
};

/** Request URL → handler, for exactly the benchmark URLs. */
const routes = new Map<string, Handler>(
  Object.entries(benchQueries).map(([id, requestUrl]): [string, Handler] => [
    requestUrl,
    handlers[id] as Handler,
  ]),
);

createServer((request, response) => {
  const url = request.url ?? '';
  // Q8 reads its position from the cursor, so it serves any cursor (the moving-cursor load).
  const handler = routes.get(url) ?? (url.startsWith(cursorPrefix) ? handlers.Q8 : undefined);
  if (!handler) {
    response.writeHead(404).end();
    return;
  }
  const [pathname, rawQuery = ''] = (request.url ?? '').split('?');
  handler(`http://${request.headers.host}${pathname}`, rawQuery).then(
    (body) => {
      const text = JSON.stringify(body);
      response.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    },
    (error: unknown) => {
      console.error(error);
      response.writeHead(500).end();
    },
  );
}).listen(Number(values.port), '127.0.0.1', () => console.log(`baseline listening on ${values.port}`));
