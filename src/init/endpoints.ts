import { kinds } from '../kinds/index.js';
import type { Action } from '../resource/policy.js';
import type {
  InputDeclaration,
  SchemaDeclaration,
  TableColumnDeclaration,
} from '../resource/schema-declaration.js';
import type { TableModel } from './model.js';
import { snakeCase } from './names.js';
import {
  type ColumnPlan,
  type EndpointPlan,
  keyColumnsOf,
  type RelationPlan,
  type ResourcePlan,
} from './plan-types.js';

/** A column of known values shown as a badge and edited with a select (an enum; a set holds several). */
const ofValues = (column: ColumnPlan): column is ColumnPlan & { values: readonly string[] } =>
  column.values !== undefined && column.values.length > 0 && (column.type as string) !== 'set';

/** The most records `all=true` answers on a generated endpoint. */
export const allLimit = 10_000;

/** What an endpoint needs of the resources its relations reach: their key and label column. */
export type RelatedResources = ReadonlyMap<string, Pick<ResourcePlan, 'primaryKey' | 'labelColumn'>>;

/**
 * The endpoint, usable as generated one level deep: filters on its own visible columns and on each
 * related resource's key and label (`artist.Name`, `artist.ArtistId`); sorts on the key, on columns an
 * index leads (a sort on another column scans the table) and on the label column; `search` on short
 * text and the label; every relation includable, to-many ones countable; `all=true` up to `allLimit`.
 * Writes (create, update, delete, restore) only when `writable`, never on a view.
 */
export function planEndpoint(
  table: TableModel,
  resource: Omit<ResourcePlan, 'endpoint' | 'variable'>,
  related: RelatedResources,
  writable: boolean,
): EndpointPlan {
  const { columns, relations, labelColumn } = resource;
  const keys = keyColumnsOf(resource);
  // Relations of a composite-key resource name their keys (planRelations), so this is never their default.
  const primaryKey = keys.join(',');
  const composite = keys.length > 1;
  const notes: string[] = [];
  const visible = columns.filter((column) => !column.hidden && column.type !== 'json');
  const ordered = (column: ColumnPlan) => kinds[column.type].ordered;
  const sortable = new Set<string>([...keys, ...(labelColumn ? [labelColumn] : [])]);
  for (const index of table.indexes) {
    const [first] = index.columns;
    if (first) sortable.add(first);
  }
  const isVisible = (name: string) => columns.some((column) => column.name === name && !column.hidden);
  /** The column of this table an include matches related records by: it must be answered. */
  const parentKey = (relation: RelationPlan) =>
    relation.kind === 'belongsTo'
      ? relation.foreignKey
      : relation.kind === 'belongsToMany'
        ? (relation.parentKey ?? primaryKey)
        : (relation.localKey ?? primaryKey);
  const includable = relations.filter((relation) => isVisible(parentKey(relation)));
  const relationFilters = relations.flatMap((relation) => {
    const target = related.get(relation.resource);
    if (!target) return [];
    const names = [...keyColumnsOf(target), ...(target.labelColumn ? [target.labelColumn] : [])];
    return [...new Set(names)].map((column) => `${relation.name}.${column}`);
  });
  const search = columns.filter(
    (column) =>
      column.type === 'string' && !column.hidden && (column.text === 'short' || column.name === labelColumn),
  );

  const { schema, inputs } = schemaDeclaration(resource, notes);
  const actions: Action[] = ['list', 'read'];
  if (writable && resource.view) notes.push('A view: read-only, even with --writable.');
  else if (writable && composite)
    notes.push('A composite key: its records are listed and read, not written, even with --writable.');
  else if (writable) {
    const key = columns.find((column) => column.primaryKey);
    if (inputs === 0) notes.push('No column the form can write: no create or update.');
    else if (key?.required)
      notes.push(
        `No create: its key ${primaryKey} has no default or auto-increment, and a form does not write keys.`,
      );
    else actions.push('create');
    if (inputs > 0) actions.push('update');
    actions.push('delete');
    if (resource.softDeleteColumn) actions.push('restore');
  }
  return {
    resource: resource.name,
    allowedFilters: [
      ...visible.map((column) => column.name),
      ...(resource.softDeleteColumn ? ['trashed'] : []),
      ...relationFilters,
    ],
    allowedSorts: [
      ...keys,
      ...visible
        .filter((column) => !keys.includes(column.name) && sortable.has(column.name) && ordered(column))
        .map((column) => column.name),
    ],
    allowedIncludes: includable.map((relation) => relation.name),
    allowedCounts: relations
      .filter((relation) => relation.kind === 'hasMany' || relation.kind === 'belongsToMany')
      .map((relation) => relation.name),
    allowedSearch: search.map((column) => column.name),
    allowAll: allLimit,
    defaultSort: keys.map((key) => `-${key}`).join(','),
    actions,
    schema,
    notes,
  };
}

const badgeColors = ['blue', 'green', 'orange', 'purple', 'yellow', 'red', 'gray'];

/** `values` → a color each, in order (the admin UI's badge colors). */
function colorMap(values: readonly string[]): Record<string, string> {
  return Object.fromEntries(values.map((value, i) => [value, badgeColors[i % badgeColors.length] as string]));
}

/**
 * The form input that edits a column: a select for known values, text by its length and name, else its
 * kind's input (src/kinds/); undefined: no input fits it (datetimes, JSON, bytes, arrays and sets stay out
 * of the form, shown in the table and the detail only), or the database computes it.
 */
function inputFor(column: ColumnPlan): InputDeclaration | undefined {
  if (column.generated) return undefined;
  const required = column.required ? { required: true } : {};
  if (ofValues(column))
    return {
      name: column.name,
      type: 'select',
      ...required,
      options: column.values.map((value) => ({ value, label: value })),
    };
  switch (column.type as string) {
    case 'string': {
      if (column.text === undefined) return { name: column.name, type: 'text', ...required };
      const email = /(^|_)e?mail$/.test(snakeCase(column.name)) && column.text === 'short';
      const type = email ? 'email' : column.text === 'long' ? 'textarea' : 'text';
      return {
        name: column.name,
        type,
        ...required,
        ...(column.length !== undefined && column.length !== 255 && { maxLength: column.length }),
      };
    }
    case 'boolean':
      return { name: column.name, type: 'switch', ...required };
    // A datetime's text input would take the ISO form only: left to a hand-written form.
    case 'datetime':
    case 'json':
      return undefined;
  }
  const input = kinds[column.type].input;
  return input ? { name: column.name, type: input, ...required } : undefined;
}

/**
 * The schema document for the admin UI: the table shows every visible column but JSON and long text, a
 * badge for a column of known values; the detail shows every visible column; the form has an input for
 * each visible column a kind's input fits, but the key and the soft-delete column (served read-only
 * unless the endpoint updates). Returns how many inputs the form has.
 */
function schemaDeclaration(
  resource: Omit<ResourcePlan, 'endpoint' | 'variable'>,
  notes: string[],
): { schema: SchemaDeclaration; inputs: number } {
  const visible = resource.columns.filter((column) => !column.hidden);
  const badge = ofValues;
  const tableColumns: TableColumnDeclaration[] = visible
    .filter((column) => column.type !== 'json' && column.text !== 'long')
    .map((column) =>
      badge(column)
        ? { key: column.name, type: 'badge', colorMap: colorMap(column.values) }
        : { key: column.name },
    );
  const inputs: InputDeclaration[] = [];
  const left: string[] = [];
  for (const column of visible) {
    if (column.primaryKey || column.name === resource.softDeleteColumn) continue;
    const input = inputFor(column);
    if (input) inputs.push(input);
    else left.push(column.name);
  }
  if (left.length > 0 && !resource.view)
    notes.push(`Not in the form (no input for their kind): ${left.join(', ')}.`);
  const schema: SchemaDeclaration = {
    ...(resource.labelColumn && { recordTitle: resource.labelColumn }),
    table: { columns: tableColumns },
    ...(inputs.length > 0 && !resource.view && { form: { inputs } }),
    detail: {
      fields: visible.map((column) =>
        badge(column) ? { key: column.name, type: 'badge' } : { key: column.name },
      ),
    },
  };
  return { schema, inputs: resource.view ? 0 : inputs.length };
}
