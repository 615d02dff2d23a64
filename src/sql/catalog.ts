import type { TableMetadata } from 'kysely';
import type { Catalog } from '../resource/registry.js';
import type { DynamicDb } from './dialect.js';

/**
 * Reads from the database what the declarations may get wrong or leave out — today, which columns can
 * hold NULL — for the tables the resources name. Kysely's introspection reads each engine's catalog
 * (pg_attribute, information_schema, SQLite's table_info) in one query, once, at start-up.
 */
export async function readCatalog(db: DynamicDb, tables: readonly string[]): Promise<Catalog> {
  const metadata = await db.introspection.getTables();
  const catalog = new Map<string, Map<string, { nullable: boolean }>>();
  for (const table of new Set(tables)) {
    const found = findTable(metadata, table);
    if (!found) continue;
    catalog.set(
      table,
      new Map(found.columns.map((column) => [column.name, { nullable: column.isNullable }])),
    );
  }
  return catalog;
}

/**
 * `schema.table` names one table; a bare name is the table of that name when only one schema has it,
 * or the one in `public` (PostgreSQL's default search path). Anything else stays unknown: guessing
 * could read another table's columns.
 */
function findTable(metadata: readonly TableMetadata[], table: string): TableMetadata | undefined {
  const dot = table.lastIndexOf('.');
  if (dot !== -1) {
    const schema = table.slice(0, dot);
    const name = table.slice(dot + 1);
    return metadata.find((candidate) => candidate.name === name && candidate.schema === schema);
  }
  const candidates = metadata.filter((candidate) => candidate.name === table);
  if (candidates.length === 1) return candidates[0];
  return candidates.find((candidate) => candidate.schema === 'public');
}
