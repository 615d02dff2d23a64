import pluralize from 'pluralize';
import type { Action, RecordData, ResourceEntry, SchemaDocument } from '../../src/client/index.js';

/**
 * What the admin knows before it draws anything: the schema index and every resource's schema
 * document, as the current token sees them. Everything the admin shows is decided from these.
 */
export interface Catalog {
  entries: readonly ResourceEntry[];
  /** Schema documents by endpoint path (a resource whose document failed to load is left out). */
  schemas: ReadonlyMap<string, SchemaDocument>;
  /** The endpoint paths whose lists and records the service streams changes of (none: no live pages). */
  live?: ReadonlySet<string>;
}

/**
 * The endpoint path (react-admin's resource name here) of a resource by its name: the first endpoint
 * that serves it, as the service's own documents refer to one (`DetailRelation.schema`).
 */
export function pathOfResource(
  catalog: Catalog,
  resource: string,
  schema?: string | null,
): string | undefined {
  const entries = catalog.entries.filter((entry) => catalog.schemas.has(entry.path));
  return (
    entries.find((entry) => schema && entry.schema === schema)?.path ??
    entries.find((entry) => entry.resource === resource)?.path
  );
}

/** The key column of an endpoint's records (its first, for a composite key; `id` by default). */
export const keyOf = (catalog: Catalog, path: string): string =>
  catalog.entries.find((entry) => entry.path === path)?.key[0] ?? 'id';

/** A record's title from its title columns' values, joined by a space; undefined when they are all empty. */
export function titleOf(columns: readonly string[], record: RecordData | undefined): string | undefined {
  if (!record) return undefined;
  const words = columns
    .map((column) => record[column])
    .filter((value) => (typeof value === 'string' && value.trim() !== '') || typeof value === 'number')
    .map(String);
  return words.length > 0 ? words.join(' ') : undefined;
}

/** "Invoice line": one record of a resource titled "Invoice lines". */
export const singular = (title: string): string => {
  const words = title.split(' ');
  const last = words.pop() ?? '';
  return [...words, pluralize.singular(last)].join(' ');
};

/**
 * What a record is called wherever it appears (references, page titles, autocompletes): its title
 * columns, else "Invoice 412".
 */
export function representation(schema: SchemaDocument, key: string) {
  return (record: RecordData): string =>
    titleOf(schema.detail.titleColumns, record) ??
    `${singular(schema.table.title)} ${String(record[key] ?? record.id)}`;
}

export const can = (schema: SchemaDocument, action: Action): boolean => schema.table.actions.includes(action);

/** Update needs the action and a form with inputs (a read-only context gets none). */
export const canEdit = (schema: SchemaDocument): boolean =>
  can(schema, 'update') && !schema.form.readOnly && schema.form.inputs.length > 0;

export const canCreate = (schema: SchemaDocument): boolean =>
  can(schema, 'create') && schema.form.inputs.length > 0;
