import { type ColumnDataType, type CreateTableBuilder, type RawBuilder, sql } from 'kysely';
import type { Connection } from '../../src/sql/connect.js';
import type { DialectName } from '../../src/sql/dialect.js';

/** Our column kinds; `id` is the generated integer primary key, `text` a long body. */
export type ColumnKind =
  | 'id'
  | 'string'
  | 'text'
  | 'integer'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'json';

interface Engine {
  types: Record<ColumnKind, ColumnDataType>;
  /** Whether `id` needs AUTO_INCREMENT / AUTOINCREMENT (PostgreSQL's `serial` carries its own sequence). */
  autoIncrement: boolean;
  /** Appended to every CREATE TABLE. */
  tableOptions?: RawBuilder<unknown>;
  /** Moves a table's id generator past rows inserted with explicit ids. */
  syncIds?: (table: string) => RawBuilder<unknown>;
  /** The insert time, in the column's own format: the default of the record timestamps. */
  now: RawBuilder<unknown>;
}

/** Everything in the demo's DDL that differs between the databases. */
const engines: Record<DialectName, Engine> = {
  postgres: {
    types: {
      id: 'serial',
      string: 'varchar(255)',
      text: 'text',
      integer: 'integer',
      decimal: 'numeric(12, 2)',
      boolean: 'boolean',
      date: 'date',
      datetime: 'timestamptz',
      json: 'jsonb',
    },
    autoIncrement: false,
    now: sql`now()`,
    syncIds: (table) =>
      sql`select setval(pg_get_serial_sequence(${table}, 'id'), max(id)) from ${sql.table(table)}`,
  },
  mysql: {
    types: {
      id: 'integer',
      string: 'varchar(255)',
      text: 'text',
      integer: 'integer',
      decimal: 'decimal(12, 2)',
      // tinyint(1): reads back as 0/1.
      boolean: 'boolean',
      date: 'date',
      datetime: 'datetime(3)',
      // MariaDB's json is longtext with a json_valid check, read back as text.
      json: 'json',
    },
    autoIncrement: true,
    now: sql`current_timestamp(3)`,
    // Case-insensitive comparisons, as most MariaDB installations have them.
    tableOptions: sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_general_ci`,
  },
  sqlite: {
    types: {
      id: 'integer',
      string: 'varchar(255)',
      text: 'text',
      integer: 'integer',
      decimal: 'real',
      boolean: 'integer',
      date: 'text',
      // One canonical ISO format (`2024-01-15T10:00:00.000Z`) so text order is time order.
      datetime: 'text',
      json: 'text',
    },
    autoIncrement: true,
    now: sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`,
  },
};

interface ForeignKey {
  references: string;
  nullable: boolean;
}

/** An integer column pointing at `table.id`. */
const ref = (table: string, nullable = false): ForeignKey => ({ references: table, nullable });

/** A column by kind, `?` when nullable, or a foreign key. */
type Spec = ColumnKind | `${Exclude<ColumnKind, 'id'>}?` | ForeignKey;

/** Parents before children: the creation and insertion order. */
const tables = {
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
    department_id: ref('departments', true),
    password_hash: 'string',
    created_at: 'datetime',
    updated_at: 'datetime',
    deleted_at: 'datetime?',
  },
  profiles: { id: 'id', user_id: ref('users'), bio: 'text?', website: 'string?' },
  roles: { id: 'id', name: 'string', label: 'string' },
  permissions: { id: 'id', name: 'string' },
  role_user: { user_id: ref('users'), role_id: ref('roles') },
  permission_role: { permission_id: ref('permissions'), role_id: ref('roles') },
  posts: {
    id: 'id',
    user_id: ref('users'),
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
    post_id: ref('posts'),
    user_id: ref('users'),
    body: 'text',
    approved: 'boolean',
    created_at: 'datetime',
  },
} satisfies Record<string, Record<string, Spec>>;

export type DemoTable = keyof typeof tables;

/** The demo tables, parents first. */
export const demoTables = Object.keys(tables) as DemoTable[];

export interface DemoColumn {
  name: string;
  kind: ColumnKind;
  nullable: boolean;
  references?: string;
}

export function demoColumns(table: DemoTable): DemoColumn[] {
  return Object.entries(tables[table] as Record<string, Spec>).map(([name, spec]) => {
    if (typeof spec === 'object') return { name, kind: 'integer', ...spec };
    const nullable = spec.endsWith('?');
    return { name, kind: (nullable ? spec.slice(0, -1) : spec) as ColumnKind, nullable };
  });
}

/**
 * Record timestamps the database fills on insert, so a create (the admin's, a data provider's) leaves
 * them out. PATCH does not touch `updated_at` (docs/records-and-writes.md, "PATCH").
 */
const insertTimestamps = new Set(['created_at', 'updated_at']);

/**
 * Defaults for the NOT NULL columns a form may leave out (a hidden input is not stored). A user created
 * without a password has an empty hash, which no password matches.
 */
const columnDefaults: Partial<Record<DemoTable, Record<string, string | number | boolean>>> = {
  users: { score: 0, balance: 0, is_admin: false, password_hash: '' },
  posts: { score: 0 },
};

/** Pivot tables: keyed by both columns, so a pair is stored once. */
const primaryKeys: Partial<Record<DemoTable, string[]>> = {
  role_user: ['user_id', 'role_id'],
  permission_role: ['permission_id', 'role_id'],
};

/**
 * Every foreign key is covered: by an index here, by a unique index, or as the first column of a pivot's
 * primary key. `users.status` and `created_at` serve the common filters and the default keyset order.
 */
const indexes: { table: DemoTable; columns: string[]; unique?: boolean }[] = [
  { table: 'users', columns: ['email'], unique: true },
  { table: 'users', columns: ['status'] },
  // Newest first, ties broken by the key: the default order of most lists, read backwards.
  { table: 'users', columns: ['created_at', 'id'] },
  { table: 'users', columns: ['department_id'] },
  { table: 'profiles', columns: ['user_id'], unique: true },
  { table: 'role_user', columns: ['role_id'] },
  { table: 'permission_role', columns: ['role_id'] },
  { table: 'posts', columns: ['user_id'] },
  { table: 'posts', columns: ['created_at'] },
  { table: 'comments', columns: ['post_id'] },
  { table: 'comments', columns: ['user_id'] },
];

/** Creates the demo tables, keys and indexes on any of the three databases. */
export async function createSchema(conn: Connection): Promise<void> {
  const engine = engines[conn.dialect.name];
  for (const table of demoTables) {
    let builder: CreateTableBuilder<string, string> = conn.db.schema.createTable(table);
    for (const { name, kind, nullable, references } of demoColumns(table)) {
      builder = builder.addColumn(name, engine.types[kind], (column) => {
        if (kind === 'id')
          return engine.autoIncrement ? column.primaryKey().autoIncrement() : column.primaryKey();
        if (nullable) return column;
        const fallback = columnDefaults[table]?.[name];
        if (fallback !== undefined) return column.notNull().defaultTo(fallback);
        return kind === 'datetime' && insertTimestamps.has(name)
          ? column.notNull().defaultTo(engine.now)
          : column.notNull();
      });
      if (references)
        builder = builder.addForeignKeyConstraint(
          `${table}_${name}_foreign`,
          [name],
          references,
          ['id'],
          // An optional link is cut when its target goes; a required one takes the row with it.
          (key) => key.onDelete(nullable ? 'set null' : 'cascade'),
        );
    }
    const primaryKey = primaryKeys[table];
    if (primaryKey) builder = builder.addPrimaryKeyConstraint(`${table}_pkey`, primaryKey);
    if (engine.tableOptions) builder = builder.modifyEnd(engine.tableOptions);
    await builder.execute();
  }
  for (const { table, columns, unique } of indexes) {
    const index = conn.db.schema
      .createIndex(`${table}_${columns.join('_')}_index`)
      .on(table)
      .columns(columns);
    await (unique ? index.unique() : index).execute();
  }
  await createChangeLog(conn);
}

/** The change log of the demo's live streams (what `resource-query-service live setup` creates). */
export async function createChangeLog(conn: Connection): Promise<void> {
  for (const statement of conn.dialect.changeLog.create(DEMO_CHANGE_LOG)) await statement.execute(conn.db);
}

/** The demo's change log table (the default name). */
export const DEMO_CHANGE_LOG = 'live_changes';

/** Drops the demo tables that exist, children first so no foreign key blocks a drop, and the change log. */
export async function dropSchema(conn: Connection): Promise<void> {
  for (const table of [...demoTables].reverse()) await conn.db.schema.dropTable(table).ifExists().execute();
  for (const statement of conn.dialect.changeLog.drop(DEMO_CHANGE_LOG)) await statement.execute(conn.db);
}

/** After rows were inserted with explicit ids: lets later inserts without an id continue past them. */
export async function syncIdSequence(conn: Connection, table: DemoTable): Promise<void> {
  const statement = engines[conn.dialect.name].syncIds?.(table);
  if (statement && demoColumns(table).some((column) => column.kind === 'id'))
    await statement.execute(conn.db);
}
