import { sql } from 'kysely';
import pg from 'pg';
import { createSchema, dropSchema } from '../examples/demo/schema.js';
import { connect } from '../src/sql/connect.js';
import type { DynamicDb } from '../src/sql/dialect.js';

/**
 * The indexes a real table has for the benchmark's sorts, each in the order the service (and the
 * baseline) emit: the demo schema's `(created_at, id)` serves newest first; a nullable column sorted
 * descending has NULLs last; a mixed-direction pair has its directions. Added to a dataset made before
 * they existed, too.
 */
async function createSortIndexes(db: DynamicDb): Promise<void> {
  const indexes = [
    sql`create index if not exists users_created_at_id_index on users (created_at, id)`,
    sql`create index if not exists users_birthday_desc_index on users (birthday desc nulls last, id desc)`,
    sql`create index if not exists users_status_created_at_index on users (status, created_at desc, id desc)`,
  ];
  for (const index of indexes) await index.execute(db);
  await sql`analyze users`.execute(db);
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
