import { sql } from 'kysely';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createSchema, dropSchema, syncIdSequence } from '../examples/demo/schema.js';
import { type Connection, connect } from '../src/sql/connect.js';
import type { DynamicDb } from '../src/sql/dialect.js';
import { databaseUrl, type EngineName, serverOf } from './engines.js';

/**
 * The indexes a real table has for the benchmark's sorts, each in the order the service (and the
 * baseline) emit: the demo schema's `(created_at, id)` serves newest first; a nullable column sorted
 * descending has NULLs last (PostgreSQL says so; on MariaDB and SQLite NULL is the smallest value, so
 * a descending index has them last already); a mixed-direction pair has its directions; Q14's posts
 * are read by user, newest first, from `(user_id, created_at, id)`. Added to a
 * dataset made before they existed, too, then the tables are analysed.
 */
const sortIndexes: Record<EngineName, string[]> = {
  pg: [
    'create index if not exists users_created_at_id_index on users (created_at, id)',
    'create index if not exists users_birthday_desc_index on users (birthday desc nulls last, id desc)',
    'create index if not exists users_status_created_at_index on users (status, created_at desc, id desc)',
    'create index if not exists posts_user_created_at_index on posts (user_id, created_at, id)',
    'analyze users',
    'analyze posts',
  ],
  mariadb: [
    'create index if not exists users_birthday_desc_index on users (birthday desc, id desc)',
    'create index if not exists users_status_created_at_index on users (status, created_at desc, id desc)',
    'create index if not exists posts_user_created_at_index on posts (user_id, created_at, id)',
    'analyze table users, posts, comments, role_user, roles',
  ],
  sqlite: [
    'create index if not exists users_birthday_desc_index on users (birthday desc, id desc)',
    'create index if not exists users_status_created_at_index on users (status, created_at desc, id desc)',
    'create index if not exists posts_user_created_at_index on posts (user_id, created_at, id)',
    'analyze',
  ],
};

async function createSortIndexes(db: DynamicDb, engine: EngineName = 'pg'): Promise<void> {
  for (const index of sortIndexes[engine]) await sql.raw(index).execute(db);
}

/**
 * The benchmark's PostgreSQL database: the demo schema filled with generate_series and PostgreSQL's
 * own hash function, so the data is deterministic and takes seconds, not minutes, to create.
 * ~5 posts per user, 2 comments per post, 1–2 roles per user, JSON settings, 5% soft-deleted users.
 */
export async function prepareDataset(server: string, database: string, users: number): Promise<string> {
  const admin = new pg.Client({ connectionString: `${server}/postgres` });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [database]);
  if (exists.rowCount === 0) await admin.query(`create database ${database}`);
  await admin.end();
  const url = `${server}/${database}`;
  const conn = connect(url);
  const { db } = conn;
  try {
    const counts = await sql<{
      users: number;
      posts: number;
    }>`select (select count(*) from users)::int as users, (select count(*) from posts)::int as posts`
      .execute(db)
      .then((result) => result.rows[0])
      .catch(() => undefined);
    if (counts?.users === users && counts.posts === users * 5) {
      await createSortIndexes(db);
      return url;
    }
    console.log(`creating the dataset: ${users} users, ${users * 5} posts, ${users * 10} comments…`);
    await dropSchema(conn);
    await createSchema(conn);
    const n = sql.lit(users);
    const statements = [
      sql`insert into departments (id, name, code, budget, created_at)
          select i, 'Department ' || i, 'D' || i, i * 1000, timestamptz '2023-01-01' + i * interval '1 day' from generate_series(1, 6) i`,
      sql`insert into roles (id, name, label) select i, (array['admin','editor','author','moderator','viewer','billing','support','auditor'])[i],
          initcap((array['admin','editor','author','moderator','viewer','billing','support','auditor'])[i]) from generate_series(1, 8) i`,
      sql`insert into permissions (id, name) select i, 'permission.' || i from generate_series(1, 15) i`,
      sql`insert into permission_role (permission_id, role_id) select p, r from generate_series(1, 15) p, generate_series(1, 8) r where r = 1 or (p * r) % 3 = 0`,
      sql`insert into users (id, name, email, status, score, balance, is_admin, birthday, settings, department_id, password_hash, created_at, updated_at, deleted_at)
          select i,
            (array['Anna','Ben','Chloe','David','Elena','Farid','Grace','Hiro','Ines','Jonas','Joanne','Liam'])[1 + h % 12] || ' ' ||
            (array['Smith','Garcia','Okafor','Muller','Rossi','Nguyen','Kowalski','Dubois','Silva','Tanaka'])[1 + (h / 12) % 10],
            'user' || i || '@example.com',
            case when h % 10 < 7 then 'active' when h % 10 < 9 then 'inactive' else 'banned' end,
            (h / 7) % 101,
            ((h / 11) % 200000) / 100.0,
            h % 13 = 0,
            case when h % 5 = 0 then null else date '1960-01-01' + (h % 14600) end,
            case when h % 50 = 0 then null else jsonb_build_object('theme', (array['dark','light','system'])[1 + (h / 3) % 3],
              'language', (array['en','fr','de','es','ja'])[1 + (h / 17) % 5], 'level', 1 + (h / 5) % 10,
              'notifications', jsonb_build_object('email', h % 4 <> 0)) end,
            case when h % 10 = 0 then null else 1 + h % 6 end,
            'scrypt$bench',
            timestamptz '2023-01-01' + i * interval '10 minutes',
            timestamptz '2023-01-01' + i * interval '10 minutes',
            case when h % 20 = 0 then timestamptz '2025-06-01' end
          from (select i, abs(hashint4(i)) as h from generate_series(1, ${n}) i) s`,
      sql`insert into role_user (user_id, role_id)
          select distinct i, r from (select i, abs(hashint4(i)) as h from generate_series(1, ${n}) i) s,
            lateral (values (1 + h % 8), (case when h % 3 = 0 then 1 + (h / 8) % 8 else 1 + h % 8 end)) v(r)`,
      sql`insert into posts (id, user_id, title, body, status, score, meta, published_at, created_at, deleted_at)
          select (u - 1) * 5 + k, u, 'Post ' || k || ' of user ' || u, 'Body of post ' || k, (array['draft','published','published','archived'])[1 + (u + k) % 4],
            abs(hashint4(u * 5 + k)) % 100, jsonb_build_object('reading_minutes', 1 + (u + k) % 20),
            timestamptz '2023-01-01' + (u * 5 + k) * interval '2 minutes', timestamptz '2023-01-01' + (u * 5 + k) * interval '2 minutes',
            case when (u + k) % 40 = 0 then timestamptz '2025-01-01' end
          from generate_series(1, ${n}) u, generate_series(1, 5) k`,
      sql`insert into comments (id, post_id, user_id, body, approved, created_at)
          select (p - 1) * 2 + c, p, 1 + abs(hashint4(p * 2 + c)) % ${n}, 'Comment ' || c, c = 1, timestamptz '2023-02-01' + p * interval '1 minute'
          from generate_series(1, ${n} * 5) p, generate_series(1, 2) c`,
    ];
    for (const statement of statements) await statement.execute(db);
    await createSortIndexes(db);
    for (const table of ['departments', 'users', 'posts', 'comments', 'roles', 'permissions'])
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${sql.table(table)}))`.execute(
        db,
      );
    // Vacuumed as well as analysed: a table just filled has no visibility map and unset hint bits, so
    // its first minutes of reads would write, and the first queries measured would pay for it.
    await sql`vacuum analyze`.execute(db);
    return url;
  } finally {
    await db.destroy();
  }
}

/** The benchmark database on `engine`, made if missing (or of another size): its URL. */
export async function prepareEngineDataset(engine: EngineName, users: number): Promise<string> {
  if (engine === 'pg') return prepareDataset(serverOf(engine), DATABASE, users);
  if (engine === 'mariadb') {
    const admin = await mysql.createConnection({ uri: serverOf(engine) });
    await admin
      .query(`create database if not exists ${DATABASE} character set utf8mb4 collate utf8mb4_general_ci`)
      .finally(() => admin.end());
  }
  const url = databaseUrl(engine, DATABASE);
  const conn = connect(url);
  try {
    if ((await sizeOf(conn.db)) === users) await createSortIndexes(conn.db, engine);
    else await generate(conn, engine, users);
    return url;
  } finally {
    await conn.db.destroy();
  }
}

export const DATABASE = 'rqs_bench';

async function sizeOf(db: DynamicDb): Promise<number | undefined> {
  const counts = await sql<{ users: number; posts: number }>`select
      (select count(*) from users) as users, (select count(*) from posts) as posts`
    .execute(db)
    .then((result) => result.rows[0])
    .catch(() => undefined);
  return counts && Number(counts.posts) === Number(counts.users) * 5 ? Number(counts.users) : undefined;
}

/** A 31-bit integer hash (murmur3's finalizer): the role `hashint4` plays in the PostgreSQL dataset. */
function hash(i: number): number {
  let h = i | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 1;
}

const pick = <T>(values: readonly T[], n: number): T => values[n % values.length] as T;
const at = (base: string, minutes: number) => new Date(Date.parse(base) + minutes * 60_000).toISOString();
const firstNames = [
  'Anna',
  'Ben',
  'Chloe',
  'David',
  'Elena',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Joanne',
  'Liam',
];
const lastNames = [
  'Smith',
  'Garcia',
  'Okafor',
  'Muller',
  'Rossi',
  'Nguyen',
  'Kowalski',
  'Dubois',
  'Silva',
  'Tanaka',
];
const roleNames = ['admin', 'editor', 'author', 'moderator', 'viewer', 'billing', 'support', 'auditor'];

/**
 * The PostgreSQL dataset's rows, made in JavaScript for MariaDB and SQLite (neither has
 * `generate_series` or `hashint4`): the same shapes and proportions, deterministic, inserted in
 * batches inside one transaction. The rows differ from PostgreSQL's (another hash); the service and
 * the baseline of one engine always read the same rows.
 */
async function generate(conn: Connection, engine: EngineName, users: number): Promise<void> {
  console.log(`creating the ${engine} dataset: ${users} users, ${users * 5} posts, ${users * 10} comments…`);
  await dropSchema(conn);
  await createSchema(conn);
  const { dialect } = conn;
  const dt = (iso: string | null) => (iso === null ? null : dialect.bindDatetime(iso));
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);
  await conn.db.transaction().execute(async (trx) => {
    const insert = async (table: string, rows: Iterable<Record<string, unknown>>) => {
      let batch: Record<string, unknown>[] = [];
      for (const row of rows) {
        batch.push(row);
        if (batch.length === 1000) {
          await trx.insertInto(table).values(batch).execute();
          batch = [];
        }
      }
      if (batch.length > 0) await trx.insertInto(table).values(batch).execute();
    };
    await insert(
      'departments',
      range(1, 6).map((i) => ({
        id: i,
        name: `Department ${i}`,
        code: `D${i}`,
        budget: i * 1000,
        created_at: dt(at('2023-01-01T00:00:00Z', i * 1440)),
      })),
    );
    await insert(
      'roles',
      roleNames.map((name, k) => ({ id: k + 1, name, label: name[0]?.toUpperCase() + name.slice(1) })),
    );
    await insert(
      'permissions',
      range(1, 15).map((i) => ({ id: i, name: `permission.${i}` })),
    );
    await insert(
      'permission_role',
      range(1, 15).flatMap((p) =>
        range(1, 8)
          .filter((r) => r === 1 || (p * r) % 3 === 0)
          .map((r) => ({ permission_id: p, role_id: r })),
      ),
    );
    await insert(
      'users',
      (function* () {
        for (let i = 1; i <= users; i++) {
          const h = hash(i);
          const created = dt(at('2023-01-01T00:00:00Z', i * 10));
          yield {
            id: i,
            name: `${pick(firstNames, h % 12)} ${pick(lastNames, Math.floor(h / 12) % 10)}`,
            email: `user${i}@example.com`,
            status: h % 10 < 7 ? 'active' : h % 10 < 9 ? 'inactive' : 'banned',
            score: Math.floor(h / 7) % 101,
            balance: (Math.floor(h / 11) % 200000) / 100,
            is_admin: dialect.bindBoolean(h % 13 === 0),
            birthday: h % 5 === 0 ? null : at('1960-01-01T00:00:00Z', (h % 14600) * 1440).slice(0, 10),
            settings:
              h % 50 === 0
                ? null
                : JSON.stringify({
                    theme: pick(['dark', 'light', 'system'], Math.floor(h / 3)),
                    language: pick(['en', 'fr', 'de', 'es', 'ja'], Math.floor(h / 17)),
                    level: 1 + (Math.floor(h / 5) % 10),
                    notifications: { email: h % 4 !== 0 },
                  }),
            department_id: h % 10 === 0 ? null : 1 + (h % 6),
            password_hash: 'scrypt$bench',
            created_at: created,
            updated_at: created,
            deleted_at: h % 20 === 0 ? dt('2025-06-01T00:00:00Z') : null,
          };
        }
      })(),
    );
    await insert(
      'role_user',
      (function* () {
        for (let i = 1; i <= users; i++) {
          const h = hash(i);
          const first = 1 + (h % 8);
          const second = h % 3 === 0 ? 1 + (Math.floor(h / 8) % 8) : first;
          yield { user_id: i, role_id: first };
          if (second !== first) yield { user_id: i, role_id: second };
        }
      })(),
    );
    await insert(
      'posts',
      (function* () {
        for (let u = 1; u <= users; u++)
          for (let k = 1; k <= 5; k++) {
            const created = dt(at('2023-01-01T00:00:00Z', (u * 5 + k) * 2));
            yield {
              id: (u - 1) * 5 + k,
              user_id: u,
              title: `Post ${k} of user ${u}`,
              body: `Body of post ${k}`,
              status: pick(['draft', 'published', 'published', 'archived'], u + k),
              score: hash(u * 5 + k) % 100,
              meta: JSON.stringify({ reading_minutes: 1 + ((u + k) % 20) }),
              published_at: created,
              created_at: created,
              deleted_at: (u + k) % 40 === 0 ? dt('2025-01-01T00:00:00Z') : null,
            };
          }
      })(),
    );
    await insert(
      'comments',
      (function* () {
        for (let p = 1; p <= users * 5; p++)
          for (let c = 1; c <= 2; c++)
            yield {
              id: (p - 1) * 2 + c,
              post_id: p,
              user_id: 1 + (hash(p * 2 + c) % users),
              body: `Comment ${c}`,
              approved: dialect.bindBoolean(c === 1),
              created_at: dt(at('2023-02-01T00:00:00Z', p)),
            };
      })(),
    );
  });
  for (const table of ['departments', 'users', 'posts', 'comments', 'roles', 'permissions'] as const)
    await syncIdSequence(conn, table);
  await createSortIndexes(conn.db, engine);
}
