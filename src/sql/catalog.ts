import {
  type ColumnMetadata,
  MysqlIntrospector,
  PostgresIntrospector,
  SqliteIntrospector,
  sql,
  type TableMetadata,
} from 'kysely';
import { type ColumnType, columnTypes, kinds } from '../kinds/index.js';
import type { CatalogEngine } from '../kinds/kind.js';
import type { Catalog, CatalogColumn } from '../resource/catalog.js';
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
  const enums = engine === 'mysql' ? await mysqlEnums(db) : undefined;
  const described = new Map<string, ReadonlyMap<string, CatalogColumn>>();
  const columnsOf = new Map<TableMetadata, ReadonlyMap<string, CatalogColumn>>();
  for (const table of metadata) {
    const columns = new Map(
      table.columns.map((column) => [
        column.name,
        describeColumn(engine, column, enums?.get(`${table.name}.${column.name}`)),
      ]),
    );
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
  const certain = engine === 'postgres' || engine === 'mysql' ? engine : undefined;
  return { ...(certain && { engine: certain }), tables: described, names: names.sort(), unlisted, refused };
}

/** The engine behind a Kysely instance, from its introspector (the adapters' own check is internal). */
function engineOf(db: DynamicDb): DialectName | undefined {
  const introspector = db.introspection;
  if (introspector instanceof PostgresIntrospector) return 'postgres';
  if (introspector instanceof MysqlIntrospector) return 'mysql';
  if (introspector instanceof SqliteIntrospector) return 'sqlite';
  return undefined;
}

function describeColumn(
  engine: DialectName | undefined,
  column: ColumnMetadata,
  values: readonly string[] | undefined,
): CatalogColumn {
  const fits = engine === 'postgres' || engine === 'mysql' ? kindsFor(engine, column.dataType) : undefined;
  return {
    nullable: column.isNullable,
    dataType: column.dataType,
    ...(column.dataTypeSchema !== undefined && { dataTypeSchema: column.dataTypeSchema }),
    ...(fits && { kinds: fits }),
    ...(values && { values }),
  };
}

/**
 * The values of each ENUM column of the current database, in the type's order, by `table.column`
 * (the schema Kysely's introspection reads). MariaDB's catalog lists them in COLUMN_TYPE alone.
 */
async function mysqlEnums(db: DynamicDb): Promise<Map<string, readonly string[]>> {
  const { rows } = await sql<{ table_name: string; column_name: string; column_type: string }>`
    select table_name as table_name, column_name as column_name, column_type as column_type
    from information_schema.columns where table_schema = database() and data_type = 'enum'`.execute(db);
  return new Map(rows.map((row) => [`${row.table_name}.${row.column_name}`, quotedValues(row.column_type)]));
}

/** `enum('a','it''s')` → `['a', "it's"]`: the values of a MySQL ENUM or SET, as COLUMN_TYPE writes them. */
export function quotedValues(type: string): string[] {
  const open = type.indexOf('(');
  if (open < 0) return [];
  const values: string[] = [];
  const pattern = /'((?:[^'\\]|''|\\.)*)'/g;
  for (const match of type.slice(open).matchAll(pattern))
    values.push((match[1] as string).replace(/''/g, "'").replace(/\\(.)/g, '$1'));
  return values;
}

// The declared kinds a database type can serve: each kind lists the engine types it reads correctly
// (`Kind.serves`, src/kinds/). A type no kind lists (a PostgreSQL enum or array, a domain) is not checked.
// Columns whose `storage` is an integer (unix seconds, 0/1) are checked as integers (src/resource/catalog.ts).
function servedBy(engine: CatalogEngine): Map<string, ColumnType[]> {
  const byType = new Map<string, ColumnType[]>();
  for (const type of columnTypes)
    for (const dataType of kinds[type].serves[engine]) {
      const served = byType.get(dataType) ?? [];
      if (!served.includes(type)) served.push(type);
      byType.set(dataType, served);
    }
  return byType;
}

const served: Record<CatalogEngine, Map<string, ColumnType[]>> = {
  postgres: servedBy('postgres'),
  mysql: servedBy('mysql'),
};

function kindsFor(engine: CatalogEngine, dataType: string): readonly ColumnType[] | undefined {
  return served[engine].get(dataType.toLowerCase());
}

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
