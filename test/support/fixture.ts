import type { Connection } from '../../src/sql/connect.js';

/**
 * A small hand-made dataset with the edge cases the filters must get right (case, wildcards in
 * values, JSON types, soft deletes, nulls, empty strings, day boundaries). Tests compute their
 * expectations from these arrays with plain JavaScript, independently of SQL.
 */
export interface UserRow {
  id: number;
  name: string;
  email: string;
  status: 'active' | 'inactive' | 'banned';
  score: number;
  balance: number;
  is_admin: boolean;
  birthday: string | null;
  settings: Record<string, unknown> | null;
  department_id: number | null;
  created_at: string;
  deleted_at: string | null;
}

export const departments = [
  { id: 1, name: 'Engineering', code: 'ENG', budget: 1000.5, created_at: '2023-01-01T00:00:00.000Z' },
  { id: 2, name: 'Sales', code: 'SAL', budget: 500, created_at: '2023-01-02T00:00:00.000Z' },
  { id: 3, name: 'Support', code: 'SUP', budget: 250.25, created_at: '2023-01-03T00:00:00.000Z' },
];

export const roles = [
  { id: 1, name: 'admin', label: 'Administrator' },
  { id: 2, name: 'editor', label: 'Editor' },
  { id: 3, name: 'author', label: 'Author' },
  { id: 4, name: 'viewer', label: 'Viewer' },
];

export const permissions = [
  { id: 1, name: 'posts.create' },
  { id: 2, name: 'posts.delete' },
  { id: 3, name: 'users.manage' },
  { id: 4, name: 'comments.moderate' },
];

/** role id → permission ids */
export const rolePermissions: Record<number, number[]> = { 1: [1, 2, 3, 4], 2: [1, 2], 3: [1], 4: [] };

export const users: UserRow[] = [
  u(
    1,
    'Anna Smith',
    'anna@example.com',
    'active',
    85,
    100.5,
    true,
    '1990-05-14',
    { theme: 'dark', language: 'en', level: 3, notifications: { email: true, sms: false } },
    1,
    '2024-01-15T10:00:00.000Z',
  ),
  u(
    2,
    'ANNABEL Jones',
    'annabel@example.org',
    'inactive',
    42,
    0,
    false,
    null,
    { theme: 'light', language: 'fr', level: 'high', notifications: { email: false } },
    2,
    '2024-01-15T23:30:00.000Z',
  ),
  u(
    3,
    'joanne Brown',
    'joanne@example.com',
    'banned',
    97,
    250,
    false,
    '1985-12-31',
    { theme: 'Dark', level: 10 },
    1,
    '2024-02-01T00:00:00.000Z',
  ),
  u(
    4,
    'Bob 100% Real',
    'bob@test.io',
    'active',
    100,
    5.25,
    false,
    '2000-02-29',
    null,
    null,
    '2023-12-31T23:59:59.999Z',
  ),
  u(
    5,
    'Carl_Underscore',
    'carl@example.com',
    'active',
    0,
    -20,
    true,
    null,
    { theme: 'light', level: 1.5, tags: ['x'] },
    3,
    '2024-03-10T12:00:00.000Z',
  ),
  u(
    6,
    'Dana!Bang',
    'dana@example.org',
    'inactive',
    80,
    80,
    false,
    '1995-07-04',
    { theme: 'dark', level: 7 },
    2,
    '2025-06-01T08:15:00.000Z',
  ),
  u(
    7,
    'Eve Deleted',
    'eve@example.com',
    'active',
    90,
    10,
    false,
    '1992-01-01',
    { theme: 'dark' },
    1,
    '2024-04-01T00:00:00.000Z',
    '2024-05-01T00:00:00.000Z',
  ),
  u(
    8,
    'Frank Miller',
    'frank@example.com',
    'banned',
    55,
    1000,
    false,
    null,
    { theme: 'system', language: 'de', level: 5 },
    null,
    '2024-01-16T00:00:00.000Z',
  ),
];

function u(
  id: number,
  name: string,
  email: string,
  status: UserRow['status'],
  score: number,
  balance: number,
  is_admin: boolean,
  birthday: string | null,
  settings: UserRow['settings'],
  department_id: number | null,
  created_at: string,
  deleted_at: string | null = null,
): UserRow {
  return {
    id,
    name,
    email,
    status,
    score,
    balance,
    is_admin,
    birthday,
    settings,
    department_id,
    created_at,
    deleted_at,
  };
}

export const profiles = [
  { id: 1, user_id: 1, bio: 'Writes Go', website: 'https://anna.dev' },
  { id: 2, user_id: 2, bio: null, website: '' },
  { id: 3, user_id: 3, bio: 'Databases', website: null },
  { id: 4, user_id: 5, bio: null, website: 'http://carl.io' },
];

/** user id → role ids */
export const userRoles: Record<number, number[]> = {
  1: [1, 2],
  2: [4],
  3: [3, 2],
  4: [4],
  5: [1],
  6: [],
  7: [2],
  8: [3],
};

export const posts = [
  {
    id: 1,
    user_id: 1,
    title: 'Hello World',
    status: 'published',
    score: 10,
    meta: { tags: ['intro'], reading_minutes: 5, featured: true },
    published_at: '2024-02-01T09:00:00.000Z',
    created_at: '2024-02-01T08:00:00.000Z',
    deleted_at: null,
  },
  {
    id: 2,
    user_id: 1,
    title: 'Second post',
    status: 'draft',
    score: 3,
    meta: null,
    published_at: null,
    created_at: '2024-02-02T08:00:00.000Z',
    deleted_at: null,
  },
  {
    id: 3,
    user_id: 3,
    title: 'Postgres tips',
    status: 'published',
    score: 50,
    meta: { reading_minutes: 12, featured: false },
    published_at: '2024-03-01T09:00:00.000Z',
    created_at: '2024-03-01T08:00:00.000Z',
    deleted_at: null,
  },
  {
    id: 4,
    user_id: 3,
    title: 'Deleted post',
    status: 'published',
    score: 99,
    meta: null,
    published_at: '2024-03-02T09:00:00.000Z',
    created_at: '2024-03-02T08:00:00.000Z',
    deleted_at: '2024-04-01T00:00:00.000Z',
  },
  {
    id: 5,
    user_id: 5,
    title: 'Hello again',
    status: 'archived',
    score: 7,
    meta: { featured: true },
    published_at: '2024-04-01T09:00:00.000Z',
    created_at: '2024-04-01T08:00:00.000Z',
    deleted_at: null,
  },
  {
    id: 6,
    user_id: 8,
    title: 'Only draft',
    status: 'draft',
    score: 1,
    meta: null,
    published_at: null,
    created_at: '2024-05-01T08:00:00.000Z',
    deleted_at: null,
  },
];

export const comments = [
  {
    id: 1,
    post_id: 1,
    user_id: 2,
    body: 'Great intro',
    approved: true,
    created_at: '2024-02-03T00:00:00.000Z',
  },
  { id: 2, post_id: 1, user_id: 3, body: 'Thanks', approved: false, created_at: '2024-02-04T00:00:00.000Z' },
  {
    id: 3,
    post_id: 3,
    user_id: 1,
    body: 'Useful tips',
    approved: true,
    created_at: '2024-03-05T00:00:00.000Z',
  },
  {
    id: 4,
    post_id: 4,
    user_id: 2,
    body: 'On a deleted post',
    approved: true,
    created_at: '2024-03-06T00:00:00.000Z',
  },
  { id: 5, post_id: 5, user_id: 6, body: 'Nice', approved: false, created_at: '2024-04-02T00:00:00.000Z' },
];

/** Inserts user rows as the engine stores them (booleans, JSON and datetimes in its own forms). */
export async function insertUsers(conn: Connection, rows: readonly UserRow[]): Promise<void> {
  const { db, dialect } = conn;
  const dt = (iso: string | null) => (iso === null ? null : dialect.bindDatetime(iso));
  await db
    .insertInto('users')
    .values(
      rows.map((user) => ({
        ...user,
        is_admin: dialect.bindBoolean(user.is_admin),
        settings: user.settings === null ? null : JSON.stringify(user.settings),
        password_hash: `hash-${user.id}`,
        created_at: dt(user.created_at),
        updated_at: dt(user.created_at),
        deleted_at: dt(user.deleted_at),
      })),
    )
    .execute();
}

/** A post as the tests write it: `body` and `meta` default to what the fixture gives them. */
export interface PostInsert {
  id: number;
  user_id: number;
  title: string;
  status: string;
  score: number;
  meta?: unknown;
  body?: string;
  published_at: string | null;
  created_at: string;
  deleted_at: string | null;
}

/** Inserts posts as the engine stores them (JSON and datetimes in its own forms). */
export async function insertPosts(conn: Connection, rows: readonly PostInsert[]): Promise<void> {
  const { db, dialect } = conn;
  const dt = (iso: string | null) => (iso === null ? null : dialect.bindDatetime(iso));
  await db
    .insertInto('posts')
    .values(
      rows.map((post) => ({
        ...post,
        body: post.body ?? `Body of ${post.title}`,
        meta: post.meta === null || post.meta === undefined ? null : JSON.stringify(post.meta),
        published_at: dt(post.published_at),
        created_at: dt(post.created_at),
        deleted_at: dt(post.deleted_at),
      })),
    )
    .execute();
}

export interface CommentRow {
  id: number;
  post_id: number;
  user_id: number;
  body: string;
  approved: boolean;
  created_at: string;
}

/** Inserts comments as the engine stores them. */
export async function insertComments(conn: Connection, rows: readonly CommentRow[]): Promise<void> {
  const { db, dialect } = conn;
  await db
    .insertInto('comments')
    .values(
      rows.map((c) => ({
        ...c,
        approved: dialect.bindBoolean(c.approved),
        created_at: dialect.bindDatetime(c.created_at),
      })),
    )
    .execute();
}

/** Links users to roles: user id → role ids. */
export async function insertUserRoles(conn: Connection, links: Record<number, number[]>): Promise<void> {
  const rows = Object.entries(links).flatMap(([user, ids]) =>
    ids.map((id) => ({ user_id: Number(user), role_id: id })),
  );
  if (rows.length > 0) await conn.db.insertInto('role_user').values(rows).execute();
}

/** Inserts the fixture into tables made by the demo's createSchema. */
export async function insertFixture(conn: Connection): Promise<void> {
  const { db, dialect } = conn;
  const dt = (iso: string | null) => (iso === null ? null : dialect.bindDatetime(iso));
  await db
    .insertInto('departments')
    .values(departments.map((d) => ({ ...d, created_at: dt(d.created_at) })))
    .execute();
  await db.insertInto('roles').values(roles).execute();
  await db.insertInto('permissions').values(permissions).execute();
  await db
    .insertInto('permission_role')
    .values(
      Object.entries(rolePermissions).flatMap(([role, ids]) =>
        ids.map((id) => ({ role_id: Number(role), permission_id: id })),
      ),
    )
    .execute();
  await insertUsers(conn, users);
  await db.insertInto('profiles').values(profiles).execute();
  await insertUserRoles(conn, userRoles);
  await insertPosts(conn, posts);
  await insertComments(conn, comments);
}
