import type { Connection } from '../../src/sql/connect.js';
import { type ColumnKind, type DemoTable, demoColumns, demoTables, syncIdSequence } from './schema.js';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
/** A row as the service shows it: booleans, ISO datetimes, `YYYY-MM-DD` dates, JSON as values. */
export type DemoRow = Record<string, Json>;
export type DemoData = Record<DemoTable, DemoRow[]>;

export interface SeedOptions {
  /** Number of users; posts and comments follow (~3 posts per user, ~2 comments per post). Default 200. */
  users?: number;
}

/** Short lists written as one line each. */
const list = (text: string) => text.split(' ');

const firstNames = list(
  'Anna Ben Chloé David Elena Farid Grace Hiro Inès Jonas Kemi Liam Maya Noah Olga Rosa',
);
const lastNames = list("Smith García Okafor Müller Rossi Nguyen Kowalski Dubois Silva Tanaka O'Brien Lee");
const domains = ['example.com', 'example.com', 'example.org', 'mail.test', 'acme.io'];
const departments: [name: string, code: string][] = [
  ['Engineering', 'ENG'],
  ['Sales', 'SAL'],
  ['Support', 'SUP'],
  ['Marketing', 'MKT'],
  ['Finance', 'FIN'],
  ['People', 'PPL'],
];
const permissions = [
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
/** Role name, label, and the permissions it grants (`posts.*`: every `posts.` permission). */
const roles: [name: string, label: string, grants: string[]][] = [
  ['admin', 'Administrator', ['*']],
  ['editor', 'Editor', ['posts.*', 'comments.*']],
  ['author', 'Author', ['posts.create', 'posts.update', 'comments.create']],
  ['moderator', 'Moderator', ['comments.*', 'users.view']],
  ['viewer', 'Viewer', ['users.view', 'reports.view']],
  ['billing', 'Billing', ['billing.*', 'reports.view']],
  ['support', 'Support', ['users.view', 'users.manage', 'comments.create']],
  ['auditor', 'Auditor', ['audit.view', 'reports.view', 'billing.view']],
];
const topics = list('query index cursor schema filter release design review roadmap metrics launch pricing');
const reactions = ['Great', 'Thanks for', 'Interesting take on', 'Not sure about', 'Nice', 'More on'];

const START = Date.UTC(2023, 0, 1);
const END = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
/** Rows per INSERT: far below every engine's bound-parameter limit. */
const BATCH = 500;

/** mulberry32: a tiny seeded PRNG, so every database gets the very same rows (and a test, the same choices). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomness(seed: number) {
  const next = mulberry32(seed);
  /** An integer in [min, max]. */
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  return {
    int,
    pick,
    chance: (probability: number) => next() < probability,
    /** `count` distinct items. */
    sample<T>(items: readonly T[], count: number): T[] {
      const rest = [...items];
      return Array.from(
        { length: Math.min(count, rest.length) },
        () => rest.splice(int(0, rest.length - 1), 1)[0] as T,
      );
    },
    /** A millisecond in [from, to). */
    instant: (from: number, to: number) => from + Math.floor(next() * (to - from)),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const isoDate = (ms: number) => iso(ms).slice(0, 10);
const capitalize = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
/** `Chloé` → `chloe`, `O'Brien` → `obrien`: email-safe. */
const ascii = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
const grants = (pattern: string, permission: string) =>
  pattern === '*' ||
  pattern === permission ||
  (pattern.endsWith('.*') && permission.startsWith(pattern.slice(0, -1)));

/** The demo dataset as plain values, identical on every run for the same options. */
export function demoData(options: SeedOptions = {}): DemoData {
  const userCount = options.users ?? 200;
  const r = randomness(20261122);
  const data: DemoData = {
    departments: departments.map(([name, code], i) => ({
      id: i + 1,
      name,
      code,
      budget: r.int(5_000_000, 250_000_000) / 100,
      created_at: iso(r.instant(START, START + 30 * DAY)),
    })),
    roles: roles.map(([name, label], i) => ({ id: i + 1, name, label })),
    permissions: permissions.map((name, i) => ({ id: i + 1, name })),
    permission_role: roles.flatMap(([, , patterns], role) =>
      permissions.flatMap((permission, p) =>
        patterns.some((pattern) => grants(pattern, permission))
          ? [{ permission_id: p + 1, role_id: role + 1 }]
          : [],
      ),
    ),
    users: [],
    profiles: [],
    role_user: [],
    posts: [],
    comments: [],
  };
  const otherRoleIds = roles.slice(1).map((_, i) => i + 2);

  for (let id = 1; id <= userCount; id++) {
    const first = r.pick(firstNames);
    const last = r.pick(lastNames);
    const created = r.instant(START, END);
    const roll = r.int(1, 100);
    const isAdmin = r.chance(0.06);
    data.users.push({
      id,
      name: `${first} ${last}`,
      email: `${ascii(first)}.${ascii(last)}${id}@${r.pick(domains)}`,
      status: roll <= 70 ? 'active' : roll <= 90 ? 'inactive' : 'banned',
      score: r.int(0, 100),
      // Whole cents, so every engine stores the same decimal (and no -0 appears).
      balance: r.int(-20_000, 500_000) / 100,
      is_admin: isAdmin,
      birthday: r.chance(0.2) ? null : isoDate(r.instant(Date.UTC(1960, 0, 1), Date.UTC(2006, 0, 1))),
      settings: r.chance(0.05)
        ? null
        : {
            theme: r.pick(['dark', 'light', 'system']),
            language: r.pick(['en', 'en', 'fr', 'de', 'es', 'ja']),
            level: r.int(1, 10),
            notifications: { email: r.chance(0.6), sms: r.chance(0.2) },
          },
      department_id: r.chance(0.1) ? null : r.int(1, departments.length),
      password_hash: `scrypt$demo$${id.toString(16).padStart(8, '0')}`,
      created_at: iso(created),
      updated_at: iso(r.instant(created, END)),
      deleted_at: r.chance(0.1) ? iso(r.instant(created, END)) : null,
    });
    if (r.chance(0.85))
      data.profiles.push({
        id: data.profiles.length + 1,
        user_id: id,
        bio: r.chance(0.5) ? `Works on ${r.pick(topics)} and ${r.pick(topics)}.` : null,
        // Some empty strings next to the nulls: filters must tell them apart.
        website: r.chance(0.4) ? `https://${ascii(first)}${id}.dev` : r.chance(0.2) ? '' : null,
      });
    const roleIds = isAdmin
      ? [1, ...r.sample(otherRoleIds, r.int(0, 2))]
      : r.sample(otherRoleIds, r.int(1, 3));
    for (const roleId of roleIds) data.role_user.push({ user_id: id, role_id: roleId });

    for (let k = r.int(0, 6); k > 0; k--) {
      const postId = data.posts.length + 1;
      const posted = r.instant(created, END);
      const status = r.pick(['draft', 'published', 'published', 'published', 'archived']);
      data.posts.push({
        id: postId,
        user_id: id,
        title: capitalize(`${r.pick(topics)} ${r.pick(['notes', 'guide', 'update', 'tips'])} #${postId}`),
        body: Array.from(
          { length: r.int(2, 4) },
          () => `${capitalize(r.pick(topics))} matters for ${r.pick(topics)} and ${r.pick(topics)}.`,
        ).join(' '),
        status,
        score: r.int(0, 100),
        meta: r.chance(0.3)
          ? null
          : { tags: r.sample(topics, r.int(1, 3)), reading_minutes: r.int(1, 20), featured: r.chance(0.2) },
        published_at: status === 'draft' ? null : iso(r.instant(posted, Math.min(posted + 3 * DAY, END))),
        created_at: iso(posted),
        deleted_at: r.chance(0.05) ? iso(r.instant(posted, END)) : null,
      });
      for (let c = r.int(0, 4); c > 0; c--)
        data.comments.push({
          id: data.comments.length + 1,
          post_id: postId,
          user_id: r.int(1, userCount),
          body: `${r.pick(reactions)} ${r.pick(topics)}!`,
          approved: r.chance(0.75),
          created_at: iso(r.instant(posted, Math.min(posted + 30 * DAY, END))),
        });
    }
  }
  return data;
}

/** A value in the form the connection's database stores for its column kind. */
function bind(conn: Connection, kind: ColumnKind, value: Json | undefined): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'boolean':
      return conn.dialect.bindBoolean(value === true);
    case 'datetime':
      return conn.dialect.bindDatetime(String(value));
    case 'json':
      return JSON.stringify(value);
    default:
      return value;
  }
}

/**
 * Inserts the demo dataset into tables made by `createSchema`, in multi-row batches with explicit ids
 * (Kysely's MySQL adapter returns no generated keys, and explicit ids make the data identical everywhere).
 */
export async function seedDemo(conn: Connection, options: SeedOptions = {}): Promise<void> {
  const data = demoData(options);
  for (const table of demoTables) {
    const columns = demoColumns(table);
    const rows = data[table].map((row) =>
      Object.fromEntries(columns.map(({ name, kind }) => [name, bind(conn, kind, row[name])])),
    );
    for (let i = 0; i < rows.length; i += BATCH)
      await conn.db
        .insertInto(table)
        .values(rows.slice(i, i + BATCH))
        .execute();
    await syncIdSequence(conn, table);
  }
}

/** Whether the users table exists and has rows; never throws when it does not exist. */
export async function isSeeded(conn: Connection): Promise<boolean> {
  const tables = await conn.db.introspection.getTables();
  if (!tables.some((table) => table.name === 'users')) return false;
  const row = await conn.db.selectFrom('users').select(['id', 'created_at']).limit(1).executeTakeFirst();
  if (row === undefined) return false;
  // A SQLite demo file written by an older version (ISO datetimes) is filled again in today's form.
  return !(conn.dialect.nativeDatetimeIsText && String(row.created_at).includes('T'));
}
