import {
  type ColumnMetadata,
  MysqlIntrospector,
  PostgresIntrospector,
  SqliteIntrospector,
  sql,
  type TableMetadata,
} from 'kysely';
import type { Catalog, CatalogColumn } from '../resource/catalog.js';
import type { ColumnType } from '../resource/types.js';
import type { DialectName, DynamicDb } from './dialect.js';

/**
 * Reads from the database what the declarations may get wrong or leave out: which tables and columns
 * exist, which columns can hold NULL, and which declared kinds a column's type can serve. Kysely's
 * introspection reads each engine's catalog (pg_attribute, information_schema, SQLite's table_info) in
 * one query, once, at start-up. Every table is kept (pivot tables are named by relations, not by
 * `tables`); a declared table the introspection does not list (a materialized or foreign table, another
 * database's, an attached SQLite file) is read once with `where 1 = 0`: if that works its declarations
 * are trusted, if not the database's refusal is kept for the error.
 */
export async function readCatalog(db: DynamicDb, tables: readonly string[]): Promise<Catalog> {
  const metadata = await db.introspection.getTables();
  const engine = engineOf(db);
  const described = new Map<string, ReadonlyMap<string, CatalogColumn>>();
  const columnsOf = new Map<TableMetadata, ReadonlyMap<string, CatalogColumn>>();
  for (const table of metadata) {
    const columns = new Map(table.columns.map((column) => [column.name, describeColumn(engine, column)]));
    columnsOf.set(table, columns);
    if (table.schema !== undefined) described.set(`${table.schema}.${table.name}`, columns);
  }
  const names: string[] = [];
  const unlisted = new Set<string>();
  const chosen = new Set<TableMetadata>();
  for (const name of new Set(metadata.map((table) => table.name))) {
    const found = findTable(metadata, name);
    if (found) {
      described.set(name, columnsOf.get(found) as ReadonlyMap<string, CatalogColumn>);
      chosen.add(found);
      names.push(name);
    } else {
      // In several schemas, none of them `public`: the search path decides, so it is not verified.
      unlisted.add(name);
    }
  }
  for (const table of metadata) if (!chosen.has(table)) names.push(`${table.schema}.${table.name}`);

  const refused = new Map<string, string>();
  for (const table of new Set(tables)) {
    if (described.has(table)) continue;
    try {
      await sql`select 1 from ${sql.table(table)} where 1 = 0`.execute(db);
      unlisted.add(table);
    } catch (error) {
      unlisted.delete(table);
      refused.set(table, error instanceof Error ? error.message : String(error));
    }
  }
  return { tables: described, names: names.sort(), unlisted, refused };
}

/** The engine behind a Kysely instance, from its introspector (the adapters' own check is internal). */
function engineOf(db: DynamicDb): DialectName | undefined {
  const introspector = db.introspection;
  if (introspector instanceof PostgresIntrospector) return 'postgres';
  if (introspector instanceof MysqlIntrospector) return 'mysql';
  if (introspector instanceof SqliteIntrospector) return 'sqlite';
  return undefined;
}

function describeColumn(engine: DialectName | undefined, column: ColumnMetadata): CatalogColumn {
  const kinds = engine === 'postgres' || engine === 'mysql' ? kindsFor[engine](column.dataType) : undefined;
  return { nullable: column.isNullable, dataType: column.dataType, ...(kinds && { kinds }) };
}

// The declared kinds a database type can serve; only certain contradictions are left out. `string` fits
// everything (any value reads as text), `json`, `date` and `datetime` fit text (MariaDB's JSON is
// longtext, PostgreSQL casts text to jsonb; dates stored as text), booleans fit MariaDB's integers
// (BOOLEAN is tinyint(1)). Columns whose `storage` is an integer (unix seconds, 0/1) are checked as
// integers (src/resource/catalog.ts). A type not listed here is not checked.
const numeric: readonly ColumnType[] = ['integer', 'decimal', 'string'];
const textual: readonly ColumnType[] = ['string', 'date', 'datetime', 'json'];
const temporal: readonly ColumnType[] = ['datetime', 'date', 'string'];
const json: readonly ColumnType[] = ['json', 'string'];
const only: readonly ColumnType[] = ['string'];

function lookup(types: Record<string, readonly ColumnType[]>) {
  return (dataType: string): readonly ColumnType[] | undefined =>
    Object.hasOwn(types, dataType.toLowerCase()) ? types[dataType.toLowerCase()] : undefined;
}

const kindsFor: Record<'postgres' | 'mysql', (dataType: string) => readonly ColumnType[] | undefined> = {
  // pg_type names (udt names): int4, varchar, timestamptz…; enums, arrays, domains stay unchecked.
  postgres: lookup({
    int2: numeric,
    int4: numeric,
    int8: numeric,
    numeric,
    float4: numeric,
    float8: numeric,
    // PostgreSQL compares a boolean with nothing but a boolean.
    bool: ['boolean', 'string'],
    text: textual,
    varchar: textual,
    bpchar: textual,
    citext: textual,
    date: temporal,
    timestamp: temporal,
    timestamptz: temporal,
    time: only,
    timetz: only,
    interval: only,
    json,
    jsonb: json,
    uuid: only,
    bytea: only,
  }),
  // information_schema DATA_TYPE; MySQL's BOOLEAN is tinyint(1), MariaDB's JSON is longtext.
  mysql: lookup({
    tinyint: [...numeric, 'boolean'],
    smallint: [...numeric, 'boolean'],
    mediumint: [...numeric, 'boolean'],
    int: [...numeric, 'boolean'],
    integer: [...numeric, 'boolean'],
    bigint: [...numeric, 'boolean'],
    bit: [...numeric, 'boolean'],
    decimal: [...numeric, 'boolean'],
    numeric: [...numeric, 'boolean'],
    float: [...numeric, 'boolean'],
    double: [...numeric, 'boolean'],
    char: textual,
    varchar: textual,
    tinytext: textual,
    text: textual,
    mediumtext: textual,
    longtext: textual,
    enum: only,
    set: only,
    date: temporal,
    datetime: temporal,
    timestamp: temporal,
    time: only,
    json,
    binary: only,
    varbinary: only,
    tinyblob: only,
    blob: only,
    mediumblob: only,
    longblob: only,
  }),
};

/**
 * `schema.table` names one table; a bare name is the table of that name when only one schema has it,
 * or the one in `public` (PostgreSQL's default search path). Anything else stays unknown: guessing
 * could read another table's columns.
 */
function findTable(metadata: readonly TableMetadata[], table: string): TableMetadata | undefined {
  const candidates = metadata.filter((candidate) => candidate.name === table);
  if (candidates.length === 1) return candidates[0];
  return candidates.find((candidate) => candidate.schema === 'public');
}
