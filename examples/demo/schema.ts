import { type ColumnDataType, type CreateTableBuilder, type Expression, sql } from 'kysely';
import type { Connection } from '../../src/sql/connect.js';
import type { DialectName } from '../../src/sql/dialect.js';

type Kind =
  | 'id'
  | 'ref'
  | 'string'
  | 'text'
  | 'integer'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'json';
type SqlType = ColumnDataType | Expression<unknown>;

/** Each column kind's SQL type per database: the one place where the demo's DDL differs. */
const types: Record<DialectName, Record<Exclude<Kind, 'id'>, SqlType>> = {
  postgres: {
    ref: 'integer',
    string: 'varchar(255)',
    text: 'text',
    integer: 'integer',
    decimal: 'numeric(12, 2)',
    boolean: 'boolean',
    date: 'date',
    datetime: 'timestamptz',
    json: 'jsonb',
  },
  mysql: {
    ref: 'integer',
    string: 'varchar(255)',
    text: 'text',
    integer: 'integer',
    decimal: 'decimal(12, 2)',
    boolean: 'boolean',
    date: 'date',
    datetime: sql`datetime(3)`,
    json: 'json',
  },
  sqlite: {
    ref: 'integer',
    string: 'text',
    text: 'text',
    integer: 'integer',
    decimal: 'real',
    boolean: 'integer',
    date: 'text',
    datetime: 'text',
    json: 'text',
  },
};

/** Column name → kind, with `?` for nullable: `{ name: 'string', birthday: 'date?' }`. */
type Columns = Record<string, `${Kind}` | `${Exclude<Kind, 'id'>}?`>;

const tables: Record<string, Columns> = {
  departments: { id: 'id', name: 'string', code: 'string', budget: 'decimal', created_at: 'datetime' },
  users: {
    id: 'id',
    name: 'string',
    email: 'string',
    status: 'string',
    score: 'integer',
    balance: 'decimal',
    is_admin: 'boolean',
    birthday: 'date?',
    settings: 'json?',
    department_id: 'ref?',
    password_hash: 'string',
    created_at: 'datetime',
    updated_at: 'datetime',
    deleted_at: 'datetime?',
  },
  profiles: { id: 'id', user_id: 'ref', bio: 'text?', website: 'string?' },
  roles: { id: 'id', name: 'string', label: 'string' },
  permissions: { id: 'id', name: 'string' },
  role_user: { user_id: 'ref', role_id: 'ref' },
  permission_role: { permission_id: 'ref', role_id: 'ref' },
  posts: {
    id: 'id',
    user_id: 'ref',
    title: 'string',
    body: 'text',
    status: 'string',
    score: 'integer',
    meta: 'json?',
    published_at: 'datetime?',
    created_at: 'datetime',
    deleted_at: 'datetime?',
  },
  comments: {
    id: 'id',
    post_id: 'ref',
    user_id: 'ref',
    body: 'text',
    approved: 'boolean',
    created_at: 'datetime',
  },
};

const pivots: Record<string, [string, string]> = {
  role_user: ['user_id', 'role_id'],
  permission_role: ['permission_id', 'role_id'],
};

const indexes: [table: string, columns: string[], unique?: boolean][] = [
  ['users', ['email'], true],
  ['users', ['status']],
  ['users', ['created_at']],
  ['users', ['department_id']],
  ['profiles', ['user_id'], true],
  ['role_user', ['role_id']],
  ['permission_role', ['role_id']],
  ['posts', ['user_id']],
  ['posts', ['created_at']],
  ['comments', ['post_id']],
  ['comments', ['user_id']],
];

/** Children first, so foreign keys never block a drop. */
const dropOrder = [
  'comments',
  'posts',
  'permission_role',
  'role_user',
  'permissions',
  'roles',
  'profiles',
  'users',
  'departments',
];

/** Creates the demo tables (and their indexes) on any of the three databases. */
export async function createSchema(conn: Connection): Promise<void> {
  const { db, dialect } = conn;
  const typeOf = types[dialect.name];
  for (const [table, columns] of Object.entries(tables)) {
    // biome-ignore lint/suspicious/noExplicitAny: the builder's table type is not known statically.
    let builder: CreateTableBuilder<any, any> = db.schema.createTable(table);
    for (const [name, spec] of Object.entries(columns)) {
      const nullable = spec.endsWith('?');
      const kind = spec.replace('?', '') as Kind;
      if (kind === 'id') {
        builder = builder.addColumn(name, dialect.name === 'postgres' ? 'serial' : 'integer', (column) => {
          const key = column.primaryKey();
          return dialect.name === 'mysql' ? key.autoIncrement() : key;
        });
        continue;
      }
      builder = builder.addColumn(name, typeOf[kind] as ColumnDataType, (column) =>
        nullable ? column : column.notNull(),
      );
    }
    const pivot = pivots[table];
    if (pivot) builder = builder.addPrimaryKeyConstraint(`${table}_pkey`, pivot as never);
    if (dialect.name === 'mysql')
      builder = builder.modifyEnd(
        sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_general_ci`,
      );
    await builder.execute();
  }
  for (const [table, columns, unique] of indexes) {
    let index = db.schema
      .createIndex(`${table}_${columns.join('_')}_index`)
      .on(table)
      .columns(columns);
    if (unique) index = index.unique();
    await index.execute();
  }
}

export async function dropSchema(conn: Connection): Promise<void> {
  for (const table of dropOrder) await conn.db.schema.dropTable(table).ifExists().execute();
}

/** Whether the demo tables exist and hold users (the introspection never throws on a missing table). */
export async function isSeeded(conn: Connection): Promise<boolean> {
  const names = (await conn.db.introspection.getTables()).map((table) => table.name);
  if (!names.includes('users')) return false;
  const row = await conn.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number((row as { n: unknown } | undefined)?.n ?? 0) > 0;
}
