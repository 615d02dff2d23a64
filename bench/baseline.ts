/**
 * The practical limit for a Node service: node:http + the engine's driver (`pg`, `mysql2`,
 * `better-sqlite3`) answering the benchmark URLs with hand-written, parameterised SQL and the same JSON
 * as the service. Nothing generic: one handler per URL. Orders are written as a developer who knows
 * the table would: plain `DESC` on NOT NULL columns, `NULLS LAST` where PostgreSQL needs it for a
 * nullable column, the keyset condition in the form each engine's index serves — using the same
 * indexes. `--engine pg|mariadb|sqlite`; the SQL below is written with `?` placeholders, numbered for
 * PostgreSQL once per statement text.
 */
import { hash } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { createPool } from 'mysql2/promise';
import pg from 'pg';
import { lengthAwarePage } from '../src/respond/length-aware.js';
import { cursorPage, simplePage } from '../src/respond/simple-and-cursor.js';
import { sqliteFilename } from '../src/sql/dialects/sqlite.js';
import { type EngineName, storedInstant } from './engines.js';
import { cursorPrefix, queriesFor, READ_ONE_ID } from './queries.js';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '3902' }, engine: { type: 'string', default: 'pg' } },
});
const url = process.env.DATABASE_URL as string;
const engine = values.engine as EngineName;

type Row = Record<string, unknown>;
type Handler = (path: string, rawQuery: string) => Promise<unknown>;

/** What differs between the engines in the baseline's hand-written SQL, and how it runs a statement. */
interface EngineSql {
  query(text: string, params: unknown[]): Promise<Row[]>;
  /** Case-insensitive LIKE (MariaDB's collation and SQLite's LIKE ignore ASCII case already). */
  ilike: string;
  /** `settings.theme` as text. */
  theme: string;
  /** After `birthday desc`: NULLs last (PostgreSQL sorts them first descending). */
  nullsLast: string;
  /** `YYYY-MM` of `u.created_at` in UTC, as a developer would group by month on this engine. */
  month: string;
  /** Newest-first keyset after (created_at, id): one row comparison where the index serves it. */
  after: { sql: string; params: (createdAt: string, id: number) => unknown[] };
  /**
   * A user row as the API answers it, by hand: what the driver gives back turned into the same JSON as
   * the service's (booleans, ISO instants, the settings object), so both servers do the same job.
   */
  record: (row: Row) => Row;
  /** A post row as the API answers it (`record`'s conversions for the posts' columns). */
  post: (row: Row) => Row;
  /**
   * Q14: the 3 newest live posts of each of `ids` (`?` for the id list), as a developer who knows the
   * engine writes it: LATERAL on PostgreSQL, ranked by ROW_NUMBER() elsewhere.
   */
  newestPosts: (ids: string) => string;
}

const POST_COLUMNS =
  'p.id, p.user_id, p.title, p.body, p.status, p.score, p.meta, p.published_at, p.created_at, p.deleted_at';

/** Without LATERAL: the user's live posts ranked newest first, the first three kept. */
const rankedPosts = (ids: string) =>
  `select * from (select ${POST_COLUMNS}, row_number() over (partition by p.user_id order by p.created_at desc, p.id desc) as rn
   from posts p where p.user_id in (${ids}) and p.deleted_at is null) ranked where rn <= 3 order by user_id, rn`;

function postgresSql(): EngineSql {
  pg.types.setTypeParser(1082, (value) => value); // date as YYYY-MM-DD
  pg.types.setTypeParser(1700, (value) => Number.parseFloat(value)); // numeric as a number
  pg.types.setTypeParser(20, (value) => Number(value)); // count(*) as a number
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const numbered = new Map<string, string>();
  return {
    query: async (text, params) => {
      let sql = numbered.get(text);
      if (sql === undefined) {
        let n = 0;
        sql = text.replace(/\?/g, () => `$${++n}`);
        numbered.set(text, sql);
      }
      return (await pool.query(sql, params)).rows;
    },
    ilike: 'ilike',
    theme: "u.settings ->> 'theme'",
    nullsLast: ' nulls last',
    month: "to_char(u.created_at at time zone 'UTC', 'YYYY-MM')",
    after: { sql: '(u.created_at, u.id) < (?, ?)', params: (createdAt, id) => [createdAt, id] },
    // pg parses booleans and jsonb itself, and its `Date`s serialize as ISO instants.
    record: (row) => row,
    post: (row) => row,
    newestPosts: (ids) =>
      `select top.* from unnest(array[${ids}]::int[]) as k(id) cross join lateral (
         select ${POST_COLUMNS} from posts p where p.user_id = k.id and p.deleted_at is null
         order by p.created_at desc, p.id desc limit 3) top order by top.user_id, top.created_at desc, top.id desc`,
  };
}

/** The expanded keyset form: MariaDB reads the whole index for a row comparison (FIELD-NOTES). */
const expandedAfter: EngineSql['after'] = {
  sql: 'u.created_at <= ? and (u.created_at < ? or (u.created_at = ? and u.id < ?))',
  params: (createdAt, id) => [createdAt, createdAt, createdAt, id],
};

/** `YYYY-MM-DD HH:MM:SS[.fff]` in UTC, as MariaDB and SQLite store an instant → ISO with milliseconds. */
const isoInstant = (text: unknown) =>
  typeof text === 'string'
    ? `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${text.slice(20)}000`.slice(0, 3)}Z`
    : null;

/**
 * MariaDB and SQLite give the text of a JSON column, 0/1 for a boolean and the stored instant text;
 * mysql2 gives a DECIMAL as text.
 */
const textPost = (row: Row): Row => ({
  ...row,
  meta: typeof row.meta === 'string' ? JSON.parse(row.meta) : row.meta,
  published_at: isoInstant(row.published_at),
  created_at: isoInstant(row.created_at),
  deleted_at: isoInstant(row.deleted_at),
});

const textRecord = (row: Row): Row => ({
  ...row,
  balance: typeof row.balance === 'string' ? Number(row.balance) : row.balance,
  is_admin: row.is_admin === 1,
  settings: typeof row.settings === 'string' ? JSON.parse(row.settings) : row.settings,
  created_at: isoInstant(row.created_at),
  updated_at: isoInstant(row.updated_at),
  deleted_at: isoInstant(row.deleted_at),
});

function mariadbSql(): EngineSql {
  const pool = createPool({
    uri: url.replace(/^mariadb:/, 'mysql:'),
    connectionLimit: 10,
    dateStrings: true,
    timezone: 'Z',
    charset: 'utf8mb4',
    supportBigNumbers: true,
  });
  return {
    query: async (text, params) => (await pool.query(text, params))[0] as Row[],
    ilike: 'like',
    theme: "json_value(u.settings, '$.theme')",
    nullsLast: '',
    month: "date_format(u.created_at, '%Y-%m')",
    after: expandedAfter,
    record: textRecord,
    post: textPost,
    newestPosts: rankedPosts,
  };
}

function sqliteSql(): EngineSql {
  const database = new Database(sqliteFilename(url), { readonly: true });
  const statements = new Map<string, Database.Statement>();
  return {
    query: async (text, params) => {
      let statement = statements.get(text);
      if (!statement) {
        statement = database.prepare(text);
        statements.set(text, statement);
      }
      return statement.all(...params) as Row[];
    },
    ilike: 'like',
    theme: "json_extract(u.settings, '$.theme')",
    nullsLast: '',
    month: 'substr(u.created_at, 1, 7)',
    after: expandedAfter,
    record: textRecord,
    post: textPost,
    newestPosts: rankedPosts,
  };
}

const db = { pg: postgresSql, mariadb: mariadbSql, sqlite: sqliteSql }[engine]();

const COLUMNS =
  'u.id, u.name, u.email, u.status, u.score, u.balance, u.is_admin, u.birthday, u.settings, u.department_id, u.created_at, u.updated_at, u.deleted_at';
const PER_PAGE = 15;
/** Newest first, ties by key: the endpoint's default order. */
const NEWEST = 'order by u.created_at desc, u.id desc';

async function paged(
  where: string,
  params: unknown[],
  page: number,
  path: string,
  rawQuery: string,
): Promise<unknown> {
  const [count, rows] = await Promise.all([
    db.query(`select count(*) as total from users u where u.deleted_at is null${where}`, params),
    db.query(`select ${COLUMNS} from users u where u.deleted_at is null${where} ${NEWEST} limit ? offset ?`, [
      ...params,
      PER_PAGE,
      (page - 1) * PER_PAGE,
    ]),
  ]);
  const total = Number(count[0]?.total);
  return lengthAwarePage(rows.map(db.record), { page, perPage: PER_PAGE, total, path, rawQuery });
}

/** The first page of `pagination=simple`: one row more than the page tells whether there is a next. */
async function simple(
  where: string,
  params: unknown[],
  order: string,
  path: string,
  rawQuery: string,
  from = 'users u',
): Promise<unknown> {
  const rows = await db.query(
    `select ${COLUMNS} from ${from} where u.deleted_at is null${where} ${order} limit ?`,
    [...params, PER_PAGE + 1],
  );
  return simplePage(rows.slice(0, PER_PAGE).map(db.record), {
    page: 1,
    perPage: PER_PAGE,
    hasMore: rows.length > PER_PAGE,
    path,
    rawQuery,
  });
}

const Q2_WHERE = ` and u.status = ? and u.score >= ? and u.name ${db.ilike} ? escape '!'`;
const Q2_PARAMS = ['active', 80, '%ann%'];

/**
 * A cursor carries `created_at` as the service's driver gives it back: pg parses timestamptz into a
 * `Date` here (the service keeps PostgreSQL's text), the other drivers give the stored text.
 */
const stored = (value: unknown) =>
  value instanceof Date ? storedInstant(engine, value.toISOString()) : value;

const handlers: Record<string, Handler> = {
  Q1: (path, raw) => paged('', [], 1, path, raw),
  Q2: (path, raw) => paged(Q2_WHERE, Q2_PARAMS, 1, path, raw),
  Q3: (path, raw) =>
    paged(
      ' and exists (select 1 from role_user ru join roles r on r.id = ru.role_id where ru.user_id = u.id and r.name = ?)',
      ['editor'],
      1,
      path,
      raw,
    ),
  Q4: async (path, raw) => {
    const [count, rows] = await Promise.all([
      db.query('select count(*) as total from users u where u.deleted_at is null', []),
      db.query(
        `select ${COLUMNS}, (select count(*) from posts p where p.user_id = u.id and p.deleted_at is null) as posts_count
         from users u where u.deleted_at is null ${NEWEST} limit ?`,
        [PER_PAGE],
      ),
    ]);
    const ids = rows.map((row) => row.id);
    const roles = await db.query(
      `select r.id, r.name, r.label, ru.user_id from roles r join role_user ru on ru.role_id = r.id
       where ru.user_id in (${ids.map(() => '?').join(', ')}) order by r.id`,
      ids,
    );
    const byUser = new Map<unknown, Row[]>();
    for (const { user_id, ...role } of roles) {
      const list = byUser.get(user_id) ?? [];
      list.push(role);
      byUser.set(user_id, list);
    }
    const data = rows.map((row) => ({ ...db.record(row), roles: byUser.get(row.id) ?? [] }));
    return lengthAwarePage(data, {
      page: 1,
      perPage: PER_PAGE,
      total: Number(count[0]?.total),
      path,
      rawQuery: raw,
    });
  },
  Q5: (path, raw) => paged(' and (u.status = ? or u.score >= ?)', ['banned', 95], 1, path, raw),
  Q6: (path, raw) => paged(` and ${db.theme} = ?`, ['dark'], 1, path, raw),
  Q7: (path, raw) => paged('', [], 200, path, raw),
  Q8: async (path, raw) => {
    const cursor = new URLSearchParams(raw).get('cursor') as string;
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()).v as [string, number];
    const fetched = await db.query(
      `select ${COLUMNS} from users u where u.deleted_at is null and ${db.after.sql} ${NEWEST} limit ?`,
      [...db.after.params(createdAt, id), PER_PAGE + 1],
    );
    const rows = fetched.slice(0, PER_PAGE);
    const encode = (d: string, row: Row | undefined) =>
      row
        ? Buffer.from(
            JSON.stringify({ s: '-created_at,-id', d, v: [stored(row.created_at), row.id] }),
          ).toString('base64url')
        : null;
    const next = fetched.length > PER_PAGE ? encode('next', rows[rows.length - 1]) : null;
    return cursorPage(rows.map(db.record), {
      perPage: PER_PAGE,
      next,
      prev: encode('prev', rows[0]),
      path,
      rawQuery: raw,
    });
  },
  Q9: (path, raw) => simple(Q2_WHERE, Q2_PARAMS, NEWEST, path, raw),
  Q10: (path, raw) => simple('', [], `order by u.birthday desc${db.nullsLast}, u.id desc`, path, raw),
  Q11: (path, raw) => simple('', [], 'order by u.status, u.created_at desc, u.id desc', path, raw),
  // A sparse fieldset: only the key and the two fields are read and answered.
  Q13: async (path, raw) => {
    const rows = await db.query(
      `select u.id, u.name, u.email from users u where u.deleted_at is null ${NEWEST} limit ?`,
      [PER_PAGE + 1],
    );
    return simplePage(rows.slice(0, PER_PAGE), {
      page: 1,
      perPage: PER_PAGE,
      hasMore: rows.length > PER_PAGE,
      path,
      rawQuery: raw,
    });
  },
  // Each user's 3 newest posts, and how many live posts each has (the list was cut).
  Q14: async (path, raw) => {
    const rows = await db.query(
      `select ${COLUMNS}, (select count(*) from posts p where p.user_id = u.id and p.deleted_at is null) as posts_total
       from users u where u.deleted_at is null ${NEWEST} limit ?`,
      [PER_PAGE + 1],
    );
    const page = rows.slice(0, PER_PAGE);
    const ids = page.map((row) => row.id);
    const posts = await db.query(db.newestPosts(ids.map(() => '?').join(', ')), ids);
    const byUser = new Map<unknown, Row[]>();
    for (const post of posts) {
      const { rn: _, ...columns } = post;
      const list = byUser.get(post.user_id) ?? [];
      list.push(db.post(columns));
      byUser.set(post.user_id, list);
    }
    const data = page.map(({ posts_total, ...row }) => ({
      ...db.record(row),
      posts: byUser.get(row.id) ?? [],
      posts_total: Number(posts_total),
    }));
    return simplePage(data, {
      page: 1,
      perPage: PER_PAGE,
      hasMore: rows.length > PER_PAGE,
      path,
      rawQuery: raw,
    });
  },
  // A to-one relation's column: the related table joined on its key (no row repeated), NULL last descending.
  Q15: (path, raw) =>
    simple(
      ' and u.score >= ?',
      [95],
      `order by d.name desc${db.nullsLast}, u.id desc`,
      path,
      raw,
      'users u left join departments d on d.id = u.department_id',
    ),
  // A relation's count: the same sub-query as count=posts, ordered by, not answered.
  Q16: (path, raw) =>
    simple(
      ' and u.score >= ?',
      [95],
      'order by (select count(*) from posts p where p.user_id = u.id and p.deleted_at is null) desc, u.id desc',
      path,
      raw,
    ),
  // A grouped count: GROUP BY the column, in its order.
  Q17: async () => {
    const rows = await db.query(
      'select u.status, count(*) as n from users u where u.deleted_at is null group by u.status order by u.status',
      [],
    );
    return {
      data: rows.map((row) => ({ group: { status: row.status }, count: Number(row.n) })),
      meta: { metrics: ['count'], group_by: ['status'], tz: 'UTC', limit: 1000, truncated: false },
    };
  },
  // A monthly series: the year's range on the created_at index, grouped by month, empty months as 0.
  Q18: async () => {
    const rows = await db.query(
      `select ${db.month} as month, count(*) as n from users u
       where u.deleted_at is null and u.created_at >= ? and u.created_at < ? group by 1`,
      [storedInstant(engine, '2023-01-01T00:00:00.000Z'), storedInstant(engine, '2024-01-01T00:00:00.000Z')],
    );
    const counts = new Map(rows.map((row) => [row.month, Number(row.n)]));
    const months = Array.from({ length: 12 }, (_, i) => `2023-${String(i + 1).padStart(2, '0')}`);
    return {
      data: months.map((month) => ({
        group: { 'created_at:month': `${month}-01T00:00:00+00:00` },
        count: counts.get(month) ?? 0,
      })),
      meta: { metrics: ['count'], group_by: ['created_at:month'], tz: 'UTC', limit: 1000, truncated: false },
    };
  },
  // Read-one: the record itself.
  Q12: async () => {
    const [row] = await db.query(`select ${COLUMNS} from users u where u.id = ? and u.deleted_at is null`, [
      READ_ONE_ID,
    ]);
    if (!row) throw new Error(`user ${READ_ONE_ID} is not there`);
    return db.record(row);
  },
};

/** Request URL → handler, for exactly the benchmark URLs. */
const routes = new Map<string, Handler>(
  Object.entries(queriesFor(engine)).map(([id, requestUrl]): [string, Handler] => [
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
        // The validator the service sends with every read (its conditional reads): the digest of the
        // answer, which for read-one is the record's JSON.
        etag: `"${hash('sha1', text, 'base64url')}"`,
        'cache-control': 'no-cache',
      });
      response.end(text);
    },
    (error: unknown) => {
      console.error(error);
      response.writeHead(500).end();
    },
  );
}).listen(Number(values.port), '127.0.0.1', () => console.log(`baseline listening on ${values.port}`));

// Stopped by a signal, it exits normally, so that `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
