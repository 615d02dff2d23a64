import { kinds } from '../kinds/index.js';
import { bucketUnits } from '../plan/buckets.js';
import type { Action, AggregatePolicy, IncludeConstraintPolicy } from '../resource/policy.js';
import type {
  InputDeclaration,
  SchemaDeclaration,
  TableColumnDeclaration,
} from '../resource/schema-declaration.js';
import type { DialectName } from '../sql/dialect.js';
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

/** The most records `all=true` answers on a generated endpoint (exports stream, without a maximum). */
export const allLimit = 10_000;
/** The most related records a generated to-many include answers per parent (`includeConstraints`). */
export const includeLimit = 100;
/** A text column is a group key of aggregates when its sampled rows hold at most this many values. */
export const groupableValues = 50;

/** A planned resource, as the endpoints of the resources its relations reach see it. */
export type PlannedResource = Omit<ResourcePlan, 'endpoint' | 'variable'>;
/** The resources relations reach, by name. */
export type RelatedResources = ReadonlyMap<string, PlannedResource>;

const toMany = (relation: RelationPlan) => relation.kind === 'hasMany' || relation.kind === 'belongsToMany';

/** Whether `back`, a relation of the resource `forth` reaches, only leads back the way `forth` came. */
function isInverse(forth: RelationPlan, back: RelationPlan, from: string): boolean {
  if (back.resource !== from) return false;
  if (forth.kind === 'belongsTo')
    return (back.kind === 'hasMany' || back.kind === 'hasOne') && back.foreignKey === forth.foreignKey;
  if (forth.kind === 'belongsToMany')
    return (
      back.kind === 'belongsToMany' &&
      back.pivot === forth.pivot &&
      back.foreignPivotKey === forth.relatedPivotKey
    );
  return back.kind === 'belongsTo' && back.foreignKey === forth.foreignKey;
}

/** The column of a resource an include matches related records by: it must be answered. */
function parentKey(resource: PlannedResource, relation: RelationPlan): string {
  const primaryKey = keyColumnsOf(resource).join(',');
  return relation.kind === 'belongsTo'
    ? relation.foreignKey
    : relation.kind === 'belongsToMany'
      ? (relation.parentKey ?? primaryKey)
      : (relation.localKey ?? primaryKey);
}

/** A resource's relations an include can load: those whose matching column it answers. */
function includable(resource: PlannedResource): RelationPlan[] {
  return resource.relations.filter((relation) =>
    resource.columns.some((column) => column.name === parentKey(resource, relation) && !column.hidden),
  );
}

/** Visible columns but JSON: what filters, sorts and tables show. */
const shown = (resource: PlannedResource) =>
  resource.columns.filter((column) => !column.hidden && column.type !== 'json');
/** Columns a sort may order by: of an ordered kind. */
const orderable = (column: ColumnPlan) => kinds[column.type].ordered;

/** A to-one relation joined on the related resource's one key: what relation sorts and group keys take. */
function joinsOnKey(relation: RelationPlan, target: PlannedResource | undefined): target is PlannedResource {
  return (
    relation.kind === 'belongsTo' &&
    relation.ownerKey === undefined &&
    target !== undefined &&
    typeof target.primaryKey === 'string'
  );
}

/** Each to-one relation's label (`album.Title`): what relation sorts and aggregate groups take. */
function toOneLabels(resource: PlannedResource, related: RelatedResources): string[] {
  return resource.relations.flatMap((relation) => {
    const target = related.get(relation.resource);
    return joinsOnKey(relation, target) && target.labelColumn
      ? [`${relation.name}.${target.labelColumn}`]
      : [];
  });
}

/**
 * The endpoint, usable as generated, with the power a client reaches for first:
 * - filters on its own visible columns (JSON ones and any path inside them), and on the key and label of the resources one and two relations
 *   away (`artist.Name`, `album.artist.Name`, through to-one and to-many hops);
 * - sorts on every visible column of an ordered kind, on each to-one relation's label
 *   (`album.Title`) and each counted relation (`tracks_count`); those no index leads are listed for
 *   `init` to print the `CREATE INDEX` that serves them;
 * - `search` on short text and the label;
 * - every relation includable, and the relations of those (`album.artist`), but a way straight back;
 *   to-many includes constrained (`include_filter`, `include_sort`, `include_limit` up to `includeLimit`);
 * - to-many relations countable;
 * - `all=true` up to `allLimit`, exports streamed whatever the size;
 * - aggregates: count; sum, avg, min, max of measures; groups by enums, booleans, to-one labels,
 *   text of few values; date buckets of dates and datetimes.
 * Writes (create, update, delete, restore) only when `writable`, never on a view.
 */
export function planEndpoint(
  dialect: DialectName,
  table: TableModel,
  resource: PlannedResource,
  related: RelatedResources,
  writable: boolean,
): EndpointPlan {
  const { columns, relations, labelColumn } = resource;
  const keys = keyColumnsOf(resource);
  // Relations of a composite-key resource name their keys (planRelations), so this is never their default.
  const primaryKey = keys.join(',');
  const composite = keys.length > 1;
  const notes: string[] = [];
  const visible = shown(resource);
  const json = columns.filter((column) => !column.hidden && column.type === 'json');
  const names = new Set(columns.map((column) => column.name));
  const indexed = new Set<string>(keys);
  for (const index of table.indexes) {
    const [first] = index.columns;
    if (first) indexed.add(first);
  }

  // Filters: own columns, then each related resource's key and label, one and two relations away.
  const identifying = (target: PlannedResource) => [
    ...new Set([...keyColumnsOf(target), ...(target.labelColumn ? [target.labelColumn] : [])]),
  ];
  const relationFilters: string[] = [];
  for (const relation of relations) {
    const target = related.get(relation.resource);
    if (!target) continue;
    relationFilters.push(...identifying(target).map((column) => `${relation.name}.${column}`));
    for (const next of target.relations) {
      const further = related.get(next.resource);
      if (!further || isInverse(relation, next, resource.name)) continue;
      relationFilters.push(
        ...identifying(further).map((column) => `${relation.name}.${next.name}.${column}`),
      );
    }
  }

  // Includes: each relation, and each of its resource's relations but the way back.
  const includes: RelationPlan[][] = [];
  for (const relation of includable(resource)) {
    includes.push([relation]);
    const target = related.get(relation.resource);
    if (!target) continue;
    for (const next of includable(target))
      if (!isInverse(relation, next, resource.name)) includes.push([relation, next]);
  }
  const includeConstraints: Record<string, IncludeConstraintPolicy> = {};
  for (const path of includes) {
    const last = path[path.length - 1] as RelationPlan;
    const target = related.get(last.resource);
    const parent = path.length === 1 ? resource : related.get((path[0] as RelationPlan).resource);
    if (!toMany(last) || !target || parent?.columns.some((column) => column.name === `${last.name}_total`))
      continue;
    includeConstraints[path.map((relation) => relation.name).join('.')] = {
      allowedFilters: shown(target).map((column) => column.name),
      allowedSorts: shown(target)
        .filter(orderable)
        .map((column) => column.name),
      maxLimit: includeLimit,
    };
  }

  // Sorts: columns, to-one labels, counts.
  const counts = relations.filter(toMany).map((relation) => relation.name);
  const columnSorts = [
    ...keys,
    ...visible
      .filter((column) => !keys.includes(column.name) && orderable(column))
      .map((column) => column.name),
  ];
  const relationSorts = toOneLabels(resource, related);
  const countSorts = counts.map((name) => `${name}_count`).filter((name) => !names.has(name));
  const prefixOnly = (name: string) =>
    !indexing[dialect].ordersLongText &&
    columns.some((column) => column.name === name && column.text === 'long');
  const unindexedSorts = resource.view
    ? []
    : columnSorts.filter((name) => !indexed.has(name) && !prefixOnly(name));
  if (unindexedSorts.length > 0)
    notes.push(
      `No index leads ${unindexedSorts.join(', ')}: a sort on ${unindexedSorts.length === 1 ? 'it' : 'one of them'} reads the whole filtered table (init printed the CREATE INDEX that serves each; the statement timeout bounds every sort).`,
    );

  const search = columns.filter(
    (column) =>
      column.type === 'string' && !column.hidden && (column.text === 'short' || column.name === labelColumn),
  );

  const { schema, inputs } = schemaDeclaration(resource, notes, related);
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
      // A JSON column: itself (NULL, and has_all/has_any of an array it holds) and any path inside it.
      ...json.flatMap((column) => [column.name, `${column.name}.*`]),
      ...(resource.softDeleteColumn ? ['trashed'] : []),
      ...relationFilters,
    ],
    allowedSorts: [...columnSorts, ...relationSorts, ...countSorts],
    allowedIncludes: includes.map((path) => path.map((relation) => relation.name).join('.')),
    allowedCounts: counts,
    allowedSearch: search.map((column) => column.name),
    includeConstraints,
    allowAll: allLimit,
    allowExport: 'unlimited',
    aggregates: aggregatesOf(resource, related),
    unindexedSorts,
    defaultSort: keys.map((key) => `-${key}`).join(','),
    actions,
    schema,
    notes,
  };
}

/** Columns that are keys or point at other records: counted, never summed. */
function referencing(resource: PlannedResource): Set<string> {
  const keys = new Set(keyColumnsOf(resource));
  for (const relation of resource.relations) if (relation.kind === 'belongsTo') keys.add(relation.foreignKey);
  return keys;
}

/**
 * What the aggregate route computes, for a dashboard with no edit: `count`; `sum`, `avg`, `min`, `max`
 * of each measure (a decimal with a scale, an integer that is neither a key nor a reference); `min`,
 * `max` of each date and datetime (the data's extent); groups by each enum, boolean, to-one relation's
 * label and text column of few values (at most `groupableValues` among the sampled rows, each
 * repeated); date buckets of each date and datetime column.
 */
function aggregatesOf(resource: PlannedResource, related: RelatedResources): AggregatePolicy {
  const refs = referencing(resource);
  const visible = resource.columns.filter((column) => !column.hidden);
  const measures = visible.filter(
    (column) =>
      !refs.has(column.name) &&
      ((column.type === 'decimal' && column.scale !== undefined) ||
        (column.type === 'integer' && !/(^|_)(year|id|code|number|no)$/.test(snakeCase(column.name)))),
  );
  const sampled = resource.sampledRows ?? 0;
  const groupable = (column: ColumnPlan) =>
    !refs.has(column.name) &&
    (column.type === 'enum' ||
      column.type === 'boolean' ||
      (column.type === 'string' &&
        column.text === 'short' &&
        column.distinct !== undefined &&
        column.distinct > 0 &&
        column.distinct <= groupableValues &&
        column.distinct * 2 <= sampled));
  const labels = toOneLabels(resource, related);
  const dates = visible.filter((column) => column.type === 'date' || column.type === 'datetime');
  return {
    allowedAggregates: [
      'count',
      ...measures.flatMap((column) => ['sum', 'avg', 'min', 'max'].map((fn) => `${fn}:${column.name}`)),
      // The data's extent in time: where a dashboard's range starts and ends by default.
      ...dates.flatMap((column) => [`min:${column.name}`, `max:${column.name}`]),
    ],
    allowedGroupBy: [
      ...visible.filter(groupable).map((column) => column.name),
      ...labels,
      ...dates.flatMap((column) => bucketUnits.map((unit) => `${column.name}:${unit}`)),
    ],
  };
}

const doubleQuoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** How each engine's `CREATE INDEX` is written, and whether an index on long text can serve an order. */
const indexing: Record<DialectName, { quote: (name: string) => string; ordersLongText: boolean }> = {
  postgres: { quote: doubleQuoted, ordersLongText: true },
  sqlite: { quote: doubleQuoted, ordersLongText: true },
  // MariaDB indexes a TEXT column by a prefix only, which cannot serve an order: nothing to advise.
  mysql: { quote: (name) => `\`${name.replace(/`/g, '``')}\``, ordersLongText: false },
};

/** The `CREATE INDEX` that serves a sort on `column` (printed by `init`, never run). */
export function indexStatement(dialect: DialectName, table: string, column: string): string {
  const { quote } = indexing[dialect];
  const name = `${snakeCase(table)}_${snakeCase(column)}_idx`.slice(0, 63);
  return `CREATE INDEX ${quote(name)} ON ${quote(table)} (${quote(column)});`;
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
 * The schema document for the admin UI: the table shows every visible column but JSON and long text (a
 * view's long text is shown), a
 * badge for a column of known values; the detail shows every visible column; the form has an input for
 * each visible column a kind's input fits, but the key and the soft-delete column (served read-only
 * unless the endpoint updates). Returns how many inputs the form has.
 */
function schemaDeclaration(
  resource: Omit<ResourcePlan, 'endpoint' | 'variable'>,
  notes: string[],
  related: RelatedResources,
): { schema: SchemaDeclaration; inputs: number } {
  const visible = resource.columns.filter((column) => !column.hidden);
  const badge = ofValues;
  // A view's long text is its content (`customer_list.name`, PostgreSQL `text`): shown in its table.
  const tableColumns: TableColumnDeclaration[] = visible
    .filter((column) => column.type !== 'json' && (column.text !== 'long' || resource.view))
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
  // Each many-to-many relation to a resource of one key column: its links, as the set of related keys.
  for (const relation of resource.relations) {
    const target = related.get(relation.resource);
    if (relation.kind !== 'belongsToMany' || !target || keyColumnsOf(target).length !== 1) continue;
    if (inputs.some((input) => input.name === relation.name)) continue;
    inputs.push({ name: relation.name, type: 'references' });
  }
  if (left.length > 0 && !resource.view)
    notes.push(`Not in the form (no input for their kind): ${left.join(', ')}.`);
  const schema: SchemaDeclaration = {
    ...(resource.titleColumns && {
      recordTitle: resource.titleColumns.length === 1 ? resource.titleColumns[0] : resource.titleColumns,
    }),
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
