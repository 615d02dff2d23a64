import { type ColumnMetadata, sql, type TableMetadata } from 'kysely';
import type { Connection } from '../sql/connect.js';
import type { DynamicDb } from '../sql/dialect.js';
import type {
  ColumnModel,
  DatabaseModel,
  ForeignKeyModel,
  IndexModel,
  SampleValue,
  TableModel,
} from './model.js';
import { internalTableReason } from './names.js';

export interface IntrospectOptions {
  /** PostgreSQL: the schema to read (default: `current_schema()`, usually `public`). */
  schema?: string;
  /** SQLite: how many non-null values of a column to sample (default 50). */
  sampleSize?: number;
}

/**
 * Reads a database into a `DatabaseModel`: Kysely's introspection for tables, columns, nullability and
 * auto-increment, and each engine's catalog for what it leaves out (declared types, numeric precision,
 * JSON, primary keys, foreign keys, indexes), plus — on SQLite — samples of the values whose form the
 * declared type does not tell.
 */
export async function introspect(
  connection: Connection,
  options: IntrospectOptions = {},
): Promise<DatabaseModel> {
  const model = await readCatalog(connection, options);
  await countDistinct(connection.db, model);
  return model;
}

function readCatalog(connection: Connection, options: IntrospectOptions): Promise<DatabaseModel> {
  switch (connection.dialect.name) {
    case 'postgres':
      return introspectPostgres(connection.db, options);
    case 'mysql':
      return introspectMysql(connection.db);
    case 'sqlite':
      return introspectSqlite(connection.db, options);
  }
}

/** How many rows `countDistinct` reads of each table: a bound on init's time, whatever the table's size. */
export const distinctSampleRows = 10_000;

/**
 * Text and enum columns' distinct values among a table's first `distinctSampleRows` rows
 * (`ColumnModel.distinct`, `TableModel.sampledRows`): what tells a column worth grouping by (a country,
 * a status) from one that names each row. One statement per table, bounded by the sample.
 */
async function countDistinct(db: DynamicDb, model: DatabaseModel): Promise<void> {
  for (const table of model.tables) {
    if (internalTableReason(table.name) !== undefined) continue;
    const columns = table.columns.filter((column) => textual(model.dialect, column));
    if (columns.length === 0) continue;
    const counts = columns.map(
      (column, i) => sql`count(distinct ${sql.ref(column.name)}) as ${sql.id(`d${i}`)}`,
    );
    try {
      const { rows } = await sql<Record<string, number | string | bigint>>`
        select count(*) as n, ${sql.join(counts)}
        from (select * from ${model.dialect === 'postgres' ? sql.id(model.schema, table.name) : sql.id(table.name)} limit ${sql.lit(distinctSampleRows)}) sampled`.execute(
        db,
      );
      const row = rows[0];
      if (!row) continue;
      table.sampledRows = Number(row.n);
      columns.forEach((column, i) => {
        column.distinct = Number(row[`d${i}`]);
      });
    } catch {
      // A view that cannot be read (a missing function, no privilege): nothing measured, nothing grouped.
    }
  }
}

/** Columns whose values may repeat as categories: text and enums, not keys of another kind. */
function textual(dialect: DatabaseModel['dialect'], column: ColumnModel): boolean {
  if (column.json) return false;
  if (dialect === 'postgres') return column.category === 'S' || column.category === 'E';
  const base = column.baseType.toLowerCase();
  if (dialect === 'mysql') return /char|text|enum/.test(base);
  return /char|clob|text/.test(base);
}

function baseColumn(column: ColumnMetadata): Omit<ColumnModel, 'type' | 'baseType'> {
  return {
    name: column.name,
    nullable: column.isNullable,
    autoIncrement: column.isAutoIncrementing,
    hasDefault: column.hasDefaultValue,
    ...(column.comment !== undefined && { comment: column.comment }),
  };
}

/** `numeric(12,2)` → 12, 2; `decimal(10)` → 10, 0. */
function precisionOf(type: string): { precision?: number; scale?: number } {
  const match = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(type);
  if (!match) return {};
  return { precision: Number(match[1]), scale: Number(match[2] ?? 0) };
}

/** Groups rows by a key, keeping their order. */
function groupBy<T>(rows: readonly T[], keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

// --- PostgreSQL: pg_catalog ---

export async function introspectPostgres(
  db: DynamicDb,
  options: IntrospectOptions = {},
): Promise<DatabaseModel> {
  const schema =
    options.schema ??
    (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema ??
    'public';
  const partitions = new Set(
    (
      await sql<{ name: string }>`
        select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${schema} and c.relispartition`.execute(db)
    ).rows.map((row) => row.name),
  );
  const tables = (await db.introspection.getTables()).filter(
    (table) => table.schema === schema && !partitions.has(table.name),
  );
  const types = await sql<{
    table: string;
    column: string;
    type: string;
    base: string;
    category: string;
    labels: string[] | null;
    generated: boolean;
  }>`
    select c.relname as "table", a.attname as "column", format_type(a.atttypid, a.atttypmod) as "type",
      bt.typname as "base", bt.typcategory::text as "category",
      case when bt.typtype = 'e' then array(
        select e.enumlabel::text from pg_enum e where e.enumtypid = bt.oid order by e.enumsortorder
      ) end as "labels",
      a.attgenerated <> '' as "generated"
    from pg_attribute a
      join pg_class c on c.oid = a.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      join pg_type t on t.oid = a.atttypid
      join pg_type bt on bt.oid = case when t.typtype = 'd' then t.typbasetype else t.oid end
    where n.nspname = ${schema} and a.attnum > 0 and not a.attisdropped and c.relkind in ('r', 'p', 'v')`.execute(
    db,
  );
  const typeOf = new Map(types.rows.map((row) => [`${row.table}.${row.column}`, row]));
  const indexes = await sql<{
    table: string;
    name: string;
    unique: boolean;
    primary: boolean;
    partial: boolean;
    columns: (string | null)[];
  }>`
    select c.relname as "table", i.relname as "name", ix.indisunique as "unique", ix.indisprimary as "primary",
      ix.indpred is not null as "partial",
      array(
        select a.attname::text
        from unnest(ix.indkey::int2[]) with ordinality k(attnum, n)
          left join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
        where k.n <= ix.indnkeyatts
        order by k.n
      ) as "columns"
    from pg_index ix
      join pg_class c on c.oid = ix.indrelid
      join pg_class i on i.oid = ix.indexrelid
      join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema}
    order by c.relname, i.relname`.execute(db);
  const foreignKeys = await sql<{
    table: string;
    name: string;
    referenced: string;
    columns: string[];
    referencedColumns: string[];
  }>`
    select cl.relname as "table", con.conname as "name", rc.relname as "referenced",
      array(
        select a.attname::text from unnest(con.conkey) with ordinality k(attnum, n)
          join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
        order by k.n
      ) as "columns",
      array(
        select a.attname::text from unnest(con.confkey) with ordinality k(attnum, n)
          join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum
        order by k.n
      ) as "referencedColumns"
    from pg_constraint con
      join pg_class cl on cl.oid = con.conrelid
      join pg_namespace n on n.oid = cl.relnamespace
      join pg_class rc on rc.oid = con.confrelid
      join pg_namespace rn on rn.oid = rc.relnamespace
    where con.contype = 'f' and n.nspname = ${schema} and rn.nspname = ${schema}
    order by cl.relname, con.conname`.execute(db);
  const indexesOf = groupBy(indexes.rows, (row) => row.table);
  const keysOf = groupBy(foreignKeys.rows, (row) => row.table);

  return {
    dialect: 'postgres',
    schema,
    tables: tables.map((table): TableModel => {
      const own = indexesOf.get(table.name) ?? [];
      return {
        name: table.name,
        isView: table.isView,
        columns: table.columns.map((column): ColumnModel => {
          const found = typeOf.get(`${table.name}.${column.name}`);
          const type = found?.type ?? column.dataType;
          const base = found?.base ?? column.dataType;
          return {
            ...baseColumn(column),
            type,
            baseType: base.toLowerCase(),
            ...(found && { category: found.category }),
            ...(found?.labels && { values: found.labels }),
            ...(found?.generated && { generated: true }),
            ...(base === 'numeric' && precisionOf(type)),
            ...((base === 'json' || base === 'jsonb') && { json: true }),
          };
        }),
        primaryKey: (own.find((index) => index.primary)?.columns ?? []).filter(
          (column): column is string => column !== null,
        ),
        foreignKeys: (keysOf.get(table.name) ?? []).map((key) => ({
          name: key.name,
          columns: key.columns,
          referencedTable: key.referenced,
          referencedColumns: key.referencedColumns,
        })),
        indexes: own
          .filter((index) => !index.primary)
          .map((index) => ({
            name: index.name,
            columns: index.columns,
            unique: index.unique,
            ...(index.partial && { partial: true }),
          })),
      };
    }),
  };
}

// --- MariaDB / MySQL: information_schema ---

export async function introspectMysql(db: DynamicDb): Promise<DatabaseModel> {
  const schema = (await sql<{ name: string }>`select database() as name`.execute(db)).rows[0]?.name ?? '';
  const tables = await db.introspection.getTables();
  const columns = await sql<{
    table_name: string;
    column_name: string;
    column_type: string;
    data_type: string;
    extra: string | null;
  }>`
    select TABLE_NAME as table_name, COLUMN_NAME as column_name, COLUMN_TYPE as column_type,
      DATA_TYPE as data_type, EXTRA as extra
    from information_schema.COLUMNS where TABLE_SCHEMA = database()`.execute(db);
  const typeOf = new Map(columns.rows.map((row) => [`${row.table_name}.${row.column_name}`, row]));
  const statistics = await sql<{
    table_name: string;
    index_name: string;
    non_unique: number | string;
    column_name: string | null;
  }>`
    select TABLE_NAME as table_name, INDEX_NAME as index_name, NON_UNIQUE as non_unique,
      COLUMN_NAME as column_name
    from information_schema.STATISTICS where TABLE_SCHEMA = database()
    order by TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`.execute(db);
  const usage = await sql<{
    table_name: string;
    constraint_name: string;
    column_name: string;
    referenced_table: string;
    referenced_column: string;
  }>`
    select TABLE_NAME as table_name, CONSTRAINT_NAME as constraint_name, COLUMN_NAME as column_name,
      REFERENCED_TABLE_NAME as referenced_table, REFERENCED_COLUMN_NAME as referenced_column
    from information_schema.KEY_COLUMN_USAGE
    where TABLE_SCHEMA = database() and REFERENCED_TABLE_NAME is not null
      and REFERENCED_TABLE_SCHEMA = database()
    order by TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`.execute(db);
  // MariaDB's JSON is an alias of longtext with a json_valid check, read from CHECK_CONSTRAINTS
  // (MariaDB has its TABLE_NAME column; MySQL has a real json type and no such column).
  const jsonColumns = new Set<string>();
  try {
    const checks = await sql<{ table_name: string; clause: string }>`
      select TABLE_NAME as table_name, CHECK_CLAUSE as clause
      from information_schema.CHECK_CONSTRAINTS where CONSTRAINT_SCHEMA = database()`.execute(db);
    for (const check of checks.rows)
      for (const match of check.clause.matchAll(/json_valid\s*\(\s*`?([^`)\s]+)`?\s*\)/gi))
        jsonColumns.add(`${check.table_name}.${match[1]}`);
  } catch {
    // No CHECK_CONSTRAINTS.TABLE_NAME (MySQL): its JSON columns say json themselves.
  }
  const indexesOf = groupBy(statistics.rows, (row) => row.table_name);
  const keysOf = groupBy(usage.rows, (row) => row.table_name);

  return {
    dialect: 'mysql',
    schema,
    tables: tables.map((table): TableModel => {
      const indexes = [...groupBy(indexesOf.get(table.name) ?? [], (row) => row.index_name)];
      const primary = indexes.find(([name]) => name === 'PRIMARY')?.[1] ?? [];
      return {
        name: table.name,
        isView: table.isView,
        columns: table.columns.map((column): ColumnModel => {
          const found = typeOf.get(`${table.name}.${column.name}`);
          const base = (found?.data_type ?? column.dataType).toLowerCase();
          const type = found?.column_type ?? base;
          return {
            ...baseColumn(column),
            type,
            baseType: base,
            ...((base === 'decimal' || base === 'numeric') && precisionOf(type)),
            ...((base === 'json' || jsonColumns.has(`${table.name}.${column.name}`)) && { json: true }),
            // `VIRTUAL GENERATED`, `STORED GENERATED` (MariaDB also writes `PERSISTENT GENERATED`).
            ...(/generated/i.test(found?.extra ?? '') && { generated: true }),
          };
        }),
        primaryKey: primary.map((row) => row.column_name).filter((name): name is string => name !== null),
        foreignKeys: [...groupBy(keysOf.get(table.name) ?? [], (row) => row.constraint_name)].map(
          ([name, rows]): ForeignKeyModel => ({
            name,
            columns: rows.map((row) => row.column_name),
            referencedTable: rows[0]?.referenced_table ?? '',
            referencedColumns: rows.map((row) => row.referenced_column),
          }),
        ),
        indexes: indexes
          .filter(([name]) => name !== 'PRIMARY')
          .map(
            ([name, rows]): IndexModel => ({
              name,
              columns: rows.map((row) => row.column_name),
              unique: Number(rows[0]?.non_unique) === 0,
            }),
          ),
      };
    }),
  };
}

// --- SQLite: pragma_table_info, pragma_foreign_key_list, pragma_index_list / pragma_index_info ---

/** Columns whose values tell what the declared type does not: datetimes, JSON in text, untyped ones. */
function needsSamples(column: { name: string; type: string }): boolean {
  const type = column.type.toLowerCase();
  if (/datetime|timestamp/.test(type) || /_at$|[a-z0-9]At$/.test(column.name)) return true;
  return type === '' || /char|clob|text/.test(type);
}

export async function introspectSqlite(
  db: DynamicDb,
  options: IntrospectOptions = {},
): Promise<DatabaseModel> {
  const sampleSize = options.sampleSize ?? 50;
  const tables: TableMetadata[] = await db.introspection.getTables();
  const definitions = await sql<{ name: string; sql: string | null }>`
    select name, sql from sqlite_master where type = 'table'`.execute(db);
  const createSql = new Map(definitions.rows.map((row) => [row.name, row.sql ?? '']));
  const models: TableModel[] = [];
  for (const table of tables) {
    const info = await sql<{ name: string; type: string; pk: number }>`
      select name, type, pk from pragma_table_info(${table.name}) order by cid`.execute(db);
    const declared = new Map(info.rows.map((row) => [row.name, row]));
    const keys = await sql<{ id: number; table: string; from: string; to: string | null }>`
      select id, "table", "from", "to" from pragma_foreign_key_list(${table.name}) order by id, seq`.execute(
      db,
    );
    const list = await sql<{ name: string; unique: number; origin: string; partial: number }>`
      select name, "unique", origin, partial from pragma_index_list(${table.name})`.execute(db);
    const indexes: IndexModel[] = [];
    for (const index of list.rows) {
      if (index.origin === 'pk') continue;
      const columns = await sql<{ name: string | null }>`
        select name from pragma_index_info(${index.name}) order by seqno`.execute(db);
      indexes.push({
        name: index.name,
        columns: columns.rows.map((row) => row.name),
        unique: index.unique === 1,
        ...(index.partial === 1 && { partial: true }),
      });
    }
    // A column-level or table-level `check (json_valid(col))` marks a JSON column.
    const json = new Set(
      [...(createSql.get(table.name) ?? '').matchAll(/json_valid\s*\(\s*["`[]?(\w+)["`\]]?\s*\)/gi)].map(
        (match) => match[1] as string,
      ),
    );
    const sampled = !table.isView && internalTableReason(table.name) === undefined;
    const columns: ColumnModel[] = [];
    for (const column of table.columns) {
      const type = declared.get(column.name)?.type ?? column.dataType;
      const model: ColumnModel = {
        ...baseColumn(column),
        type,
        baseType: type.toLowerCase().replace(/\s*\(.*$/, ''),
        ...(/^(numeric|decimal)/i.test(type) && precisionOf(type)),
        ...(json.has(column.name) && { json: true }),
      };
      if (sampled && needsSamples({ name: column.name, type }))
        model.samples = await sample(db, table.name, column.name, sampleSize);
      columns.push(model);
    }
    const primaryKey = info.rows
      .filter((row) => row.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((row) => row.name);
    // SQLite reports an INTEGER PRIMARY KEY as nullable; no key is.
    for (const column of columns) if (primaryKey.includes(column.name)) column.nullable = false;
    // An INTEGER PRIMARY KEY is the rowid: given one on insert, with or without AUTOINCREMENT.
    const rowid = primaryKey.length === 1 && !table.isView ? primaryKey[0] : undefined;
    for (const column of columns)
      if (column.name === rowid && column.type.toLowerCase() === 'integer') column.autoIncrement = true;
    models.push({
      name: table.name,
      isView: table.isView,
      columns,
      primaryKey,
      foreignKeys: [...groupBy(keys.rows, (row) => String(row.id))].map(
        ([, rows]): ForeignKeyModel => ({
          columns: rows.map((row) => row.from),
          referencedTable: rows[0]?.table ?? '',
          // `references users` without columns: the referenced table's primary key.
          referencedColumns: rows.every((row) => row.to !== null) ? rows.map((row) => row.to as string) : [],
        }),
      ),
      indexes,
    });
  }
  return { dialect: 'sqlite', schema: 'main', tables: models };
}

async function sample(db: DynamicDb, table: string, column: string, size: number): Promise<SampleValue[]> {
  const rows = await sql<{ value: unknown }>`
    select ${sql.id(column)} as value from ${sql.id(table)}
    where ${sql.id(column)} is not null limit ${sql.lit(size)}`.execute(db);
  const values: SampleValue[] = [];
  for (const { value } of rows.rows) {
    if (typeof value === 'string' || typeof value === 'number') values.push(value);
    else if (typeof value === 'bigint') values.push(Number(value));
  }
  return values;
}
