import { sql } from 'kysely';
import type { Connection } from '../../src/sql/connect.js';

/** mulberry32: a tiny seeded PRNG, so every database gets the very same demo data. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const firstNames = [
  'Anna',
  'Ben',
  'Chloé',
  'David',
  'Elena',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemi',
  'Liam',
  'Maya',
  'Noah',
  'Olga',
  'Pablo',
  'Quinn',
  'Rosa',
  'Sami',
  'Tara',
];
const lastNames = [
  'Smith',
  'García',
  'Okafor',
  'Müller',
  'Rossi',
  'Nguyen',
  'Kowalski',
  'Dubois',
  'Silva',
  'Tanaka',
  'Haddad',
  'Johansson',
];
const departmentNames: [string, string][] = [
  ['Engineering', 'ENG'],
  ['Sales', 'SAL'],
  ['Support', 'SUP'],
  ['Marketing', 'MKT'],
  ['Finance', 'FIN'],
  ['People', 'PPL'],
];
const roleNames = ['admin', 'editor', 'author', 'moderator', 'viewer', 'billing', 'support', 'auditor'];
const permissionNames = [
  'posts.create',
  'posts.update',
  'posts.delete',
  'posts.publish',
  'comments.create',
  'comments.moderate',
  'comments.delete',
  'users.view',
  'users.manage',
  'users.delete',
  'billing.view',
  'billing.manage',
  'reports.view',
  'settings.manage',
  'audit.view',
];
const words = [
  'query',
  'index',
  'cursor',
  'schema',
  'filter',
  'release',
  'design',
  'review',
  'notes',
  'guide',
  'update',
  'roadmap',
  'metrics',
  'launch',
  'tips',
];
const themes = ['dark', 'light', 'system'];
const languages = ['en', 'fr', 'de', 'es', 'ja'];

const capitalize = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

const START = Date.UTC(2023, 0, 1);
const SPAN = Date.UTC(2026, 0, 1) - START;

/** Inserts in batches (multi-row INSERT, explicit ids: MariaDB's adapter returns no generated keys). */
async function insertAll(conn: Connection, table: string, rows: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500)
    await conn.db
      .insertInto(table)
      .values(rows.slice(i, i + 500))
      .execute();
  // Explicit ids leave PostgreSQL's serial sequences behind; later inserts need them past the max.
  if (conn.dialect.name === 'postgres' && rows[0] && 'id' in rows[0])
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${sql.table(table)}))`.execute(
      conn.db,
    );
}

/** A small but realistic dataset, the same on every database for the same options. */
export async function seedDemo(conn: Connection, options: { users?: number } = {}): Promise<void> {
  const userCount = options.users ?? 200;
  const rand = random(20261122);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const { bindBoolean, bindDatetime } = conn.dialect;
  const instant = (from = START, span = SPAN) => new Date(from + Math.floor(rand() * span)).toISOString();

  await insertAll(
    conn,
    'departments',
    departmentNames.map(([name, code], i) => ({
      id: i + 1,
      name,
      code,
      budget: Math.round(rand() * 1e7) / 100,
      created_at: bindDatetime(instant()),
    })),
  );
  await insertAll(
    conn,
    'roles',
    roleNames.map((name, i) => ({ id: i + 1, name, label: capitalize(name) })),
  );
  await insertAll(
    conn,
    'permissions',
    permissionNames.map((name, i) => ({ id: i + 1, name })),
  );
  await insertAll(
    conn,
    'permission_role',
    roleNames.flatMap((role, r) =>
      permissionNames
        .map((_, p) => ({ role_id: r + 1, permission_id: p + 1 }))
        .filter(() => role === 'admin' || rand() < 0.3),
    ),
  );

  const users: Record<string, unknown>[] = [];
  const profiles: Record<string, unknown>[] = [];
  const roleUser: Record<string, unknown>[] = [];
  for (let id = 1; id <= userCount; id++) {
    const first = pick(firstNames);
    const last = pick(lastNames);
    const created = instant();
    const roll = rand();
    users.push({
      id,
      name: `${first} ${last}`,
      email: `${first}.${last}.${id}@example.com`
        .toLowerCase()
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, ''),
      status: roll < 0.7 ? 'active' : roll < 0.9 ? 'inactive' : 'banned',
      score: Math.floor(rand() * 101),
      balance: Math.round((rand() * 2000 - 200) * 100) / 100,
      is_admin: bindBoolean(rand() < 0.08),
      birthday:
        rand() < 0.2
          ? null
          : new Date(Date.UTC(1960, 0, 1) + Math.floor(rand() * 40 * 365) * 86_400_000)
              .toISOString()
              .slice(0, 10),
      settings:
        rand() < 0.05
          ? null
          : JSON.stringify({
              theme: pick(themes),
              language: pick(languages),
              level: 1 + Math.floor(rand() * 10),
              notifications: { email: rand() < 0.6, sms: rand() < 0.2 },
            }),
      department_id: rand() < 0.1 ? null : 1 + Math.floor(rand() * departmentNames.length),
      password_hash: `scrypt$demo$${id}`,
      created_at: bindDatetime(created),
      updated_at: bindDatetime(created),
      deleted_at:
        rand() < 0.1
          ? bindDatetime(instant(Date.parse(created), Date.UTC(2026, 0, 1) - Date.parse(created)))
          : null,
    });
    if (rand() < 0.85)
      profiles.push({
        id: profiles.length + 1,
        user_id: id,
        bio: rand() < 0.5 ? `Likes ${pick(words)} and ${pick(words)}.` : null,
        website:
          rand() < 0.4
            ? `https://${first
                .toLowerCase()
                .normalize('NFD')
                .replace(/[\u0300-\u036f]/g, '')}${id}.dev`
            : rand() < 0.5
              ? ''
              : null,
      });
    const roleIds = new Set([
      1 + Math.floor(rand() * roleNames.length),
      1 + Math.floor(rand() * roleNames.length),
    ]);
    for (const roleId of roleIds)
      if (roleIds.size === 1 || rand() < 0.9) roleUser.push({ user_id: id, role_id: roleId });
  }
  await insertAll(conn, 'users', users);
  await insertAll(conn, 'profiles', profiles);
  await insertAll(conn, 'role_user', roleUser);

  const posts: Record<string, unknown>[] = [];
  const comments: Record<string, unknown>[] = [];
  for (let userId = 1; userId <= userCount; userId++) {
    const count = Math.floor(rand() * 6);
    for (let k = 0; k < count; k++) {
      const id = posts.length + 1;
      const created = instant();
      const status = pick(['draft', 'published', 'published', 'published', 'archived']);
      posts.push({
        id,
        user_id: userId,
        title: capitalize(`${pick(words)} ${pick(words)} ${pick(words)}`),
        body: `Notes on ${pick(words)}, ${pick(words)} and ${pick(words)}.`,
        status,
        score: Math.floor(rand() * 100),
        meta:
          rand() < 0.3
            ? null
            : JSON.stringify({
                tags: [pick(words), pick(words)],
                reading_minutes: 1 + Math.floor(rand() * 20),
                featured: rand() < 0.2,
              }),
        published_at: status === 'draft' ? null : bindDatetime(created),
        created_at: bindDatetime(created),
        deleted_at: rand() < 0.05 ? bindDatetime(instant()) : null,
      });
      const commentCount = Math.floor(rand() * 5);
      for (let c = 0; c < commentCount; c++)
        comments.push({
          id: comments.length + 1,
          post_id: id,
          user_id: 1 + Math.floor(rand() * userCount),
          body: `${pick(['Great', 'Thanks', 'Interesting', 'Nice'])} ${pick(words)}!`,
          approved: bindBoolean(rand() < 0.7),
          created_at: bindDatetime(instant(Date.parse(created), 30 * 86_400_000)),
        });
    }
  }
  await insertAll(conn, 'posts', posts);
  await insertAll(conn, 'comments', comments);
}
