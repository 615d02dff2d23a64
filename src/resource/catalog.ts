/**
 * The declarations held against the database's catalog at start-up: every table, column, relation key
 * and pivot, with a message per mismatch that says what the database has instead.
 */
import type { CatalogEngine } from '../kinds/kind.js';
import type { ResolvedColumn, ResolvedResource } from './registry.js';
import { closest, listed } from './suggestions.js';
import type { ColumnType, ResourceDefinition } from './types.js';

/** What the database says about one column (src/sql/catalog.ts). */
export interface CatalogColumn {
  readonly nullable: boolean;
  /** Its type as the database names it (`int4`, `varchar`, `longtext`, `INTEGER`), for messages. */
  readonly dataType?: string;
  /** The schema its type is defined in, where the engine has schemas (PostgreSQL: `pg_catalog`, `public`). */
  readonly dataTypeSchema?: string;
  /**
   * The declared kinds its type can serve; absent when the engine's types say nothing certain (SQLite,
   * whose column types are only affinities, or a type the catalog does not know: an enum, an array).
   */
  readonly kinds?: readonly ColumnType[];
  /** An ENUM's values in the type's order, where the catalog lists them (MariaDB's COLUMN_TYPE). */
  readonly values?: readonly string[];
}

/**
 * What the database says about its tables (src/sql/catalog.ts): read once at start-up, checked here
 * against every declared table, column and relation key.
 */
export interface Catalog {
  /** The engine whose catalog this is, where its type names are certain (not SQLite's affinities). */
  readonly engine?: CatalogEngine;
  /**
   * Columns of every table and view, keyed by each name a declaration may use for it: `schema.table`,
   * and the bare name when one schema has it, or `public` does.
   */
  readonly tables: ReadonlyMap<string, ReadonlyMap<string, CatalogColumn>>;
  /** The tables as a declaration would name them: the candidates when a declared one is missing. */
  readonly names?: readonly string[];
  /** Names that exist (a query reads them) but the catalog does not describe: their declarations are trusted. */
  readonly unlisted?: ReadonlySet<string>;
  /** Declared tables the catalog does not list and the database refused to read, with its message. */
  readonly refused?: ReadonlyMap<string, string>;
}

/**
 * Every declared table, column, relation key and pivot against the catalog: one line per mismatch,
 * naming `table.column` and what the database has instead. Pure: the catalog was read before.
 */
export function verifyAgainstCatalog(
  definitions: readonly ResourceDefinition[],
  resolved: ReadonlyMap<string, ResolvedResource>,
  catalog: Catalog,
): string[] {
  const mismatches: string[] = [];
  /** The table's columns; undefined when they cannot be checked (a mismatch if the table is missing). */
  const columnsOf = (table: string, named: string): ReadonlyMap<string, CatalogColumn> | undefined => {
    const columns = catalog.tables.get(table);
    if (columns || catalog.unlisted?.has(table)) return columns;
    const refusal = catalog.refused?.get(table);
    mismatches.push(
      `${named} "${table}", which does not exist in the database${refusal ? ` (reading it fails: ${refusal})` : ''}; ${otherTables(table, catalog.names ?? [])}.`,
    );
    return undefined;
  };
  for (const definition of definitions) {
    const resource = resolved.get(definition.name) as ResolvedResource;
    const where = `Resource "${resource.name}"`;
    const columns = columnsOf(resource.table, `${where} names the table`);
    for (const column of columns ? resource.columns.values() : []) {
      const found = columns?.get(column.name);
      if (!found)
        mismatches.push(
          `${where}: column "${resource.table}.${column.name}" is declared, but the database's table has no such column (${otherColumns(column.name, columns)}).${joinsOn(resource, column.name, resolved)}`,
        );
      else if (found.kinds && !found.kinds.includes(storedKind(column)))
        mismatches.push(
          `${where}: column "${resource.table}.${column.name}" is declared ${described(column)}, but the database's column is ${found.dataType ?? 'of another type'}, which cannot hold it (${fitting(column, found.kinds)}).`,
        );
      else if (column.type === 'enum' && found.values && !sameValues(column.values ?? [], found.values))
        mismatches.push(
          `${where}: column "${resource.table}.${column.name}" is declared with values ${quotedList(column.values ?? [])}, but the database's ENUM holds ${quotedList(found.values)}: declare every one, in this order, which is the order it sorts in and a cursor compares it in.`,
        );
    }
    for (const relation of resource.relations.values()) {
      const { pivot } = relation;
      if (!pivot) continue;
      const pivotColumns = columnsOf(
        pivot.table,
        `${where}: relation "${relation.name}" names the pivot table`,
      );
      if (!pivotColumns) continue;
      for (const [option, column] of [
        ['foreignPivotKey', pivot.parentKey],
        ['relatedPivotKey', pivot.childKey],
      ] as const)
        if (!pivotColumns.has(column))
          mismatches.push(
            `${where}: relation "${relation.name}" joins through "${pivot.table}.${column}" (${option}), but the pivot table has no such column (${otherColumns(column, pivotColumns)}).`,
          );
    }
  }
  return mismatches;
}

const sameValues = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, i) => value === b[i]);

const quotedList = (values: readonly string[]) =>
  values.length === 0 ? 'none' : `[${values.map((value) => JSON.stringify(value)).join(', ')}]`;

/** The kind of the values a column holds in the database: its storage's, when it declares one. */
function storedKind(column: ResolvedColumn): ColumnType {
  if (
    column.storage === 'integer' ||
    column.storage === 'unix-seconds' ||
    column.storage === 'unix-milliseconds'
  )
    return 'integer';
  // 't'/'f' in a text column: any type that holds text fits, and every type can be read as text.
  if (column.type === 'boolean' && column.storage === 'text') return 'string';
  return column.type;
}

function described(column: ResolvedColumn): string {
  return column.storage === 'native' ? column.type : `${column.type} (storage: '${column.storage}')`;
}

/** What would fit the database's column: the kinds it serves, and the storages that would make it work. */
function fitting(column: ResolvedColumn, kinds: readonly ColumnType[]): string {
  const storages =
    column.type === 'datetime' && kinds.includes('integer')
      ? ` or storage: 'unix-seconds' / 'unix-milliseconds'`
      : column.type === 'boolean' && kinds.includes('integer')
        ? ` or storage: 'integer'`
        : column.type === 'boolean' && kinds.includes('json')
          ? ` or storage: 'text'`
          : '';
  return `it fits ${kinds.join(', ')}${storages}`;
}

/** The relations that join on `column` of `resource`, for a missing column's message. */
function joinsOn(
  resource: ResolvedResource,
  column: string,
  resolved: ReadonlyMap<string, ResolvedResource>,
): string {
  const names: string[] = [];
  for (const owner of resolved.values())
    for (const relation of owner.relations.values())
      if (
        (owner === resource && relation.parentKey === column) ||
        (relation.target === resource && relation.childKey === column)
      )
        names.push(`"${owner.name}.${relation.name}"`);
  if (names.length === 0) return '';
  return names.length === 1
    ? ` Relation ${names[0]} joins on it.`
    : ` Relations ${names.join(', ')} join on it.`;
}

function otherColumns(name: string, columns: ReadonlyMap<string, CatalogColumn> | undefined): string {
  const existing = [...(columns?.keys() ?? [])];
  const close = closest(name, existing);
  const guess = close.length ? `did you mean ${close.map((other) => `"${other}"`).join(' or ')}? ` : '';
  return `${guess}it has ${listed(existing)}`;
}

function otherTables(name: string, tables: readonly string[]): string {
  if (tables.length === 0) return 'the database has no tables at all (is it the right database?)';
  const close = closest(name, tables);
  const guess = close.length ? `did you mean ${close.map((other) => `"${other}"`).join(' or ')}? ` : '';
  return `${guess}it has ${listed(tables)}`;
}
