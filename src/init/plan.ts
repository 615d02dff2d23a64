import type { ColumnType, DatetimeStorage } from '../resource/types.js';
import type { DialectName } from '../sql/dialect.js';
import type { ColumnModel, DatabaseModel, SampleValue, TableModel } from './model.js';
import {
  camelIdentifier,
  internalTableReason,
  isSensitive,
  lowerFirst,
  pluralize,
  singularize,
  snakeCase,
  stripIdSuffix,
} from './names.js';

/**
 * The decisions `init` takes from a `DatabaseModel`, before any text is written: which tables become
 * resources, each column's kind and options, relations, soft deletes, datetime storage, endpoints.
 * `planConfig` is pure; `generateConfig` (generate.ts) renders its result.
 */
export interface ConfigPlan {
  dialect: DialectName;
  schema: string;
  resources: ResourcePlan[];
  /** Tables that are not resources, and why. */
  skipped: SkippedTable[];
}

export interface SkippedTable {
  table: string;
  reason: string;
}

export interface ResourcePlan {
  name: string;
  table: string;
  /** The module's variable for the resource. */
  variable: string;
  primaryKey: string;
  columns: ColumnPlan[];
  /** Columns left out (no column kind fits them), and why. */
  skippedColumns: { name: string; reason: string }[];
  relations: RelationPlan[];
  softDeleteColumn?: string;
  /** SQLite: the storage all datetime columns share, written once (`storage: { datetime }`). */
  datetimeStorage?: DatetimeStorage;
  /** Facts for the comment above the resource: unique constraints, relations not made. */
  notes: string[];
  endpoint: EndpointPlan;
}

export interface ColumnPlan {
  name: string;
  type: ColumnType;
  big?: boolean;
  precision?: number;
  scale?: number;
  /** Datetime columns on SQLite: how the values are stored. */
  storage?: DatetimeStorage;
  nullable: boolean;
  primaryKey: boolean;
  hidden: boolean;
  /** Facts for the column's comment: declared type, keys, uniqueness, how a kind was detected. */
  notes: string[];
}

export type RelationPlan =
  | { kind: 'belongsTo'; name: string; resource: string; foreignKey: string; ownerKey?: string }
  | { kind: 'hasOne' | 'hasMany'; name: string; resource: string; foreignKey: string; localKey?: string }
  | {
      kind: 'belongsToMany';
      name: string;
      resource: string;
      pivot: string;
      foreignPivotKey: string;
      relatedPivotKey: string;
      parentKey?: string;
      relatedKey?: string;
    };

export interface EndpointPlan {
  resource: string;
  allowedFilters: string[];
  allowedSorts: string[];
  allowedIncludes: string[];
  allowedCounts: string[];
  defaultSort: string;
}

/** One foreign key of one column, resolved to the referenced column. */
interface Link {
  table: string;
  column: string;
  target: string;
  targetColumn: string;
}

/** A pivot table: exactly two foreign keys, plus optionally an id and timestamps. */
interface Pivot {
  table: string;
  a: Link;
  b: Link;
}

const pivotExtras = new Set(['id', 'created_at', 'updated_at']);

export function planConfig(model: DatabaseModel): ConfigPlan {
  const skipped: SkippedTable[] = [];
  const candidates: TableModel[] = [];
  for (const table of model.tables) {
    const internal = internalTableReason(table.name);
    if (internal) skipped.push({ table: table.name, reason: `${internal}.` });
    else candidates.push(table);
  }
  const byName = new Map(candidates.map((table) => [table.name, table]));
  const primaryKeyOf = (table: string) => {
    const key = byName.get(table)?.primaryKey;
    return key?.length === 1 ? key[0] : undefined;
  };

  // Which tables can be resources: one key column of a kind the service knows.
  const resourceTables = new Map<string, TableModel>();
  const whyNot = new Map<string, string>();
  for (const table of candidates) {
    const key = table.primaryKey;
    const pkColumn = key.length === 1 ? table.columns.find((column) => column.name === key[0]) : undefined;
    if (table.isView) whyNot.set(table.name, 'a view: no primary key to page by (declare it by hand)');
    else if (key.length === 0) whyNot.set(table.name, 'no primary key: a resource needs one key column');
    else if (key.length > 1)
      whyNot.set(table.name, `composite primary key (${key.join(', ')}): a resource needs one key column`);
    else if (!pkColumn || 'skip' in columnKind(model.dialect, pkColumn))
      whyNot.set(table.name, `its primary key ${key[0]} has no column kind`);
    else resourceTables.set(table.name, table);
  }

  // Single-column foreign keys between application tables, resolved to their target column.
  const links: Link[] = [];
  const compositeNotes = new Map<string, string[]>();
  for (const table of candidates)
    for (const key of table.foreignKeys) {
      if (!byName.has(key.referencedTable)) continue;
      const [column] = key.columns;
      const targetColumn = key.referencedColumns[0] ?? primaryKeyOf(key.referencedTable);
      if (key.columns.length !== 1 || column === undefined || targetColumn === undefined) {
        const notes = compositeNotes.get(table.name) ?? [];
        notes.push(
          `Foreign key (${key.columns.join(', ')}) → ${key.referencedTable}: composite, no relation made.`,
        );
        compositeNotes.set(table.name, notes);
        continue;
      }
      links.push({ table: table.name, column, target: key.referencedTable, targetColumn });
    }

  const pivots = new Map<string, Pivot>();
  for (const table of candidates) {
    const own = links.filter((link) => link.table === table.name);
    if (own.length !== 2 || table.isView) continue;
    const [a, b] = own as [Link, Link];
    if (a.column === b.column) continue;
    if (!resourceTables.has(a.target) || !resourceTables.has(b.target)) continue;
    const fits = table.columns.every(
      (column) =>
        column.name === a.column || column.name === b.column || pivotExtras.has(snakeCase(column.name)),
    );
    if (fits) pivots.set(table.name, { table: table.name, a, b });
  }

  for (const table of candidates) {
    const reason = whyNot.get(table.name);
    if (reason === undefined) continue;
    const pivot = pivots.get(table.name);
    skipped.push({
      table: table.name,
      reason: pivot
        ? `${reason}; the pivot of ${pivot.a.target} ↔ ${pivot.b.target}, reached through belongsToMany.`
        : `${reason}.`,
    });
  }

  // The module's own names: a table's variable never shadows them.
  const variables = new Set([
    'endpoints',
    'belongsTo',
    'belongsToMany',
    'hasMany',
    'hasOne',
    'defineConfig',
    'defineEndpoint',
    'defineResource',
  ]);
  const resources: ResourcePlan[] = [];
  for (const table of resourceTables.values()) {
    const plan = planResource(model.dialect, table, {
      links,
      pivots,
      resourceTables,
      compositeNotes: compositeNotes.get(table.name) ?? [],
    });
    let variable = camelIdentifier(table.name);
    if (variables.has(variable)) variable = `${variable}Resource`;
    for (let n = 2; variables.has(variable); n++) variable = `${camelIdentifier(table.name)}Resource${n}`;
    variables.add(variable);
    resources.push({ ...plan, variable });
  }
  skipped.sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
  return { dialect: model.dialect, schema: model.schema, resources, skipped };
}

interface Context {
  links: Link[];
  pivots: Map<string, Pivot>;
  resourceTables: Map<string, TableModel>;
  compositeNotes: string[];
}

function planResource(
  dialect: DialectName,
  table: TableModel,
  context: Context,
): Omit<ResourcePlan, 'variable'> {
  const primaryKey = table.primaryKey[0] as string;
  const notes: string[] = [];
  const uniqueIndexes = table.indexes.filter((index) => index.unique && !index.partial);
  const uniqueColumns = new Set(
    uniqueIndexes.filter((index) => index.columns.length === 1).map((index) => index.columns[0] as string),
  );
  for (const index of uniqueIndexes)
    if (index.columns.length > 1 && index.columns.every((column) => column !== null))
      notes.push(`Unique: (${index.columns.join(', ')}) (${index.name}).`);
  notes.push(...context.compositeNotes);
  const outgoing = new Map(
    context.links.filter((link) => link.table === table.name).map((link) => [link.column, link]),
  );

  // Columns: kinds first; SQLite datetimes without values take their siblings' storage afterwards.
  const columns: ColumnPlan[] = [];
  const skippedColumns: { name: string; reason: string }[] = [];
  const pending: { plan: ColumnPlan; column: ColumnModel; family: 'integer' | 'text' | 'any' }[] = [];
  for (const column of table.columns) {
    const kind = columnKind(dialect, column);
    if ('skip' in kind) {
      skippedColumns.push({ name: column.name, reason: `${column.type || 'no type'}: ${kind.skip}` });
      continue;
    }
    const isKey = column.name === primaryKey;
    const link = outgoing.get(column.name);
    const hidden = !isKey && !link && isSensitive(column.name);
    const plan: ColumnPlan = {
      name: column.name,
      type: kind.type,
      ...(kind.big && { big: true }),
      ...(kind.precision !== undefined && { precision: kind.precision }),
      ...(kind.scale !== undefined && { scale: kind.scale }),
      ...(kind.storage && { storage: kind.storage }),
      nullable: !isKey && column.nullable,
      primaryKey: isKey,
      hidden,
      notes: [
        column.type || 'no declared type',
        ...(isKey ? ['primary key'] : []),
        ...(column.autoIncrement ? ['auto-increment'] : []),
        ...(!isKey && column.nullable ? ['nullable'] : []),
        ...(uniqueColumns.has(column.name) && !isKey ? ['unique'] : []),
        ...(link ? [`→ ${link.target}.${link.targetColumn}`] : []),
        ...kind.notes,
        ...(hidden ? ['hidden: looks sensitive'] : []),
      ],
    };
    columns.push(plan);
    if (kind.pendingStorage) pending.push({ plan, column, family: kind.pendingStorage });
  }
  for (const { plan, column, family } of pending) resolvePendingStorage(plan, column, family, columns);

  // Resource-wide storage when every datetime column agrees (SQLite only: elsewhere, native).
  let datetimeStorage: DatetimeStorage | undefined;
  const datetimes = columns.filter((column) => column.type === 'datetime');
  const storages = new Set(datetimes.map((column) => column.storage));
  if (datetimes.length > 0 && storages.size === 1 && !storages.has(undefined)) {
    datetimeStorage = datetimes[0]?.storage;
    for (const column of datetimes) delete column.storage;
  }

  const softDelete = columns.find(
    (column) => snakeCase(column.name) === 'deleted_at' && column.type === 'datetime' && column.nullable,
  );
  if (softDelete) softDelete.notes.push('soft delete');

  const relations = planRelations(table, columns, primaryKey, context, notes);

  // The endpoint: only what the table serves well.
  const visible = columns.filter((column) => !column.hidden && column.type !== 'json');
  const sortable = new Set<string>([primaryKey]);
  for (const index of table.indexes) {
    const [first] = index.columns;
    if (first) sortable.add(first);
  }
  const endpoint: EndpointPlan = {
    resource: table.name,
    allowedFilters: [...visible.map((column) => column.name), ...(softDelete ? ['trashed'] : [])],
    allowedSorts: [
      primaryKey,
      ...visible
        .filter((column) => column.name !== primaryKey && sortable.has(column.name))
        .map((column) => column.name),
    ],
    allowedIncludes: relations
      .filter((relation) => relation.kind === 'belongsTo' || relation.kind === 'hasOne')
      .map((relation) => relation.name),
    allowedCounts: relations
      .filter((relation) => relation.kind === 'hasMany')
      .map((relation) => relation.name),
    defaultSort: `-${primaryKey}`,
  };

  return {
    name: table.name,
    table: table.name,
    primaryKey,
    columns,
    skippedColumns,
    relations,
    ...(softDelete && { softDeleteColumn: softDelete.name }),
    ...(datetimeStorage && { datetimeStorage }),
    notes,
    endpoint,
  };
}

function planRelations(
  table: TableModel,
  columns: ColumnPlan[],
  primaryKey: string,
  { links, pivots, resourceTables }: Context,
  notes: string[],
): RelationPlan[] {
  const taken = new Set(columns.map((column) => column.name));
  const relations: RelationPlan[] = [];
  /** The first free candidate, else the first with a suffix that frees it. */
  const claim = (candidates: string[]) => {
    const names = candidates.filter((name) => name !== '');
    const first = names[0] ?? 'related';
    let name = names.find((candidate) => !taken.has(candidate)) ?? `${first}_relation`;
    for (let n = 2; taken.has(name); n++) name = `${first}_relation${n}`;
    taken.add(name);
    return name;
  };
  const primaryKeyOf = (name: string) => resourceTables.get(name)?.primaryKey[0];
  const unique = (child: string, column: string) => {
    const model = resourceTables.get(child);
    if (!model) return false;
    if (model.primaryKey.length === 1 && model.primaryKey[0] === column) return true;
    return model.indexes.some(
      (index) => index.unique && !index.partial && index.columns.length === 1 && index.columns[0] === column,
    );
  };

  // belongsTo: this table holds the key.
  const position = (column: string) => columns.findIndex((candidate) => candidate.name === column);
  const own = links
    .filter((candidate) => candidate.table === table.name)
    .sort((a, b) => position(a.column) - position(b.column));
  for (const link of own) {
    if (!columns.some((column) => column.name === link.column)) continue;
    if (!resourceTables.has(link.target)) {
      notes.push(`${link.column} → ${link.target}: not a resource, no relation made.`);
      continue;
    }
    const base = stripIdSuffix(link.column);
    const name = claim([base ?? '', singularize(lowerFirst(link.target)), `${link.column}_${link.target}`]);
    relations.push({
      kind: 'belongsTo',
      name,
      resource: link.target,
      foreignKey: link.column,
      ...(link.targetColumn !== primaryKeyOf(link.target) && { ownerKey: link.targetColumn }),
    });
  }

  // hasOne / hasMany: other resources hold a key to this table (pivots are reached through belongsToMany).
  const referring = links.filter((link) => link.target === table.name && !pivots.has(link.table));
  for (const link of referring)
    if (!resourceTables.has(link.table))
      notes.push(
        `${link.table}.${link.column} refers to it, but ${link.table} is not a resource: no relation made.`,
      );
  const incoming = referring.filter((link) => resourceTables.has(link.table));
  for (const link of incoming) {
    const one = unique(link.table, link.column);
    const siblings = incoming.filter((other) => other.table === link.table).length;
    const base = stripIdSuffix(link.column) ?? link.column;
    const plural = collectionName(link.table);
    const noun = one ? singularize(lowerFirst(link.table)) : plural;
    const self = link.table === table.name;
    const candidates =
      self && snakeCase(base) === 'parent' && !one
        ? ['children', `${noun}_as_${base}`]
        : siblings > 1 || self
          ? [`${noun}_as_${base}`]
          : [noun, `${noun}_as_${base}`];
    relations.push({
      kind: one ? 'hasOne' : 'hasMany',
      name: claim(candidates),
      resource: link.table,
      foreignKey: link.column,
      ...(link.targetColumn !== primaryKey && { localKey: link.targetColumn }),
    });
  }

  // belongsToMany through pivot tables.
  for (const pivot of pivots.values()) {
    const sides: [Link, Link][] = [];
    if (pivot.a.target === table.name) sides.push([pivot.a, pivot.b]);
    if (pivot.b.target === table.name) sides.push([pivot.b, pivot.a]);
    for (const [mine, other] of sides) {
      const self = pivot.a.target === pivot.b.target;
      const otherBase = stripIdSuffix(other.column) ?? other.column;
      const candidates = self
        ? [pluralize(otherBase), `${pluralize(otherBase)}_via_${pivot.table}`]
        : [collectionName(other.target), `${collectionName(other.target)}_via_${pivot.table}`];
      relations.push({
        kind: 'belongsToMany',
        name: claim(candidates),
        resource: other.target,
        pivot: pivot.table,
        foreignPivotKey: mine.column,
        relatedPivotKey: other.column,
        ...(mine.targetColumn !== primaryKey && { parentKey: mine.targetColumn }),
        ...(other.targetColumn !== primaryKeyOf(other.target) && { relatedKey: other.targetColumn }),
      });
    }
  }
  return relations;
}

/** A to-many relation's name for a table: `posts` as it is, `Post` → `posts`, `blog_entry` → `blog_entries`. */
function collectionName(table: string): string {
  return /s$/.test(table) ? table : pluralize(lowerFirst(table));
}

interface Kind {
  type: ColumnType;
  big?: boolean;
  precision?: number;
  scale?: number;
  storage?: DatetimeStorage;
  /** SQLite: a datetime-looking column without values to tell its storage. */
  pendingStorage?: 'integer' | 'text' | 'any';
  notes: string[];
}

/** A column's kind, or why it has none. */
export function columnKind(dialect: DialectName, column: ColumnModel): Kind | { skip: string } {
  if (dialect === 'postgres') return postgresKind(column);
  if (dialect === 'mysql') return mysqlKind(column);
  return sqliteKind(column);
}

function postgresKind(column: ColumnModel): Kind | { skip: string } {
  const base = column.baseType;
  if (column.json || base === 'json' || base === 'jsonb') return { type: 'json', notes: [] };
  if (column.category === 'A') return { skip: 'arrays have no column kind' };
  switch (base) {
    case 'int2':
    case 'int4':
      return { type: 'integer', notes: [] };
    case 'int8':
      return { type: 'integer', big: true, notes: [] };
    case 'numeric':
      return decimal(column);
    case 'float4':
    case 'float8':
      return { type: 'decimal', notes: [] };
    case 'bool':
      return { type: 'boolean', notes: [] };
    case 'date':
      return { type: 'date', notes: [] };
    case 'timestamp':
    case 'timestamptz':
      return { type: 'datetime', notes: [] };
    case 'bytea':
      return { skip: 'binary data has no column kind' };
    case 'tsvector':
    case 'tsquery':
      return { skip: 'full-text search values have no column kind' };
  }
  // Text, enums, uuid, time, interval, network addresses: compared as strings.
  if (
    ['S', 'E', 'I'].includes(column.category ?? '') ||
    ['uuid', 'time', 'timetz', 'interval', 'xml', 'money'].includes(base)
  )
    return { type: 'string', notes: column.category === 'E' ? ['enum'] : [] };
  return { skip: `no column kind for type ${base}` };
}

function mysqlKind(column: ColumnModel): Kind | { skip: string } {
  const base = column.baseType;
  const type = column.type.toLowerCase();
  if (column.json || base === 'json')
    return { type: 'json', notes: base === 'json' ? [] : ['JSON: a json_valid check'] };
  switch (base) {
    case 'tinyint':
      return type.startsWith('tinyint(1)') ? { type: 'boolean', notes: [] } : { type: 'integer', notes: [] };
    case 'smallint':
    case 'mediumint':
    case 'year':
      return { type: 'integer', notes: [] };
    case 'int':
    case 'integer':
      // An unsigned int goes past 2^31.
      return type.includes('unsigned')
        ? { type: 'integer', big: true, notes: [] }
        : { type: 'integer', notes: [] };
    case 'bigint':
      return { type: 'integer', big: true, notes: [] };
    case 'decimal':
    case 'numeric':
      return decimal(column);
    case 'float':
    case 'double':
    case 'real':
      return { type: 'decimal', notes: [] };
    case 'date':
      return { type: 'date', notes: [] };
    case 'datetime':
    case 'timestamp':
      return { type: 'datetime', notes: [] };
    case 'char':
    case 'varchar':
    case 'tinytext':
    case 'text':
    case 'mediumtext':
    case 'longtext':
    case 'enum':
    case 'set':
    case 'time':
      return { type: 'string', notes: [] };
  }
  return { skip: `no column kind for type ${base}` };
}

function decimal(column: ColumnModel): Kind {
  return {
    type: 'decimal',
    ...(column.precision !== undefined && { precision: column.precision }),
    ...(column.precision !== undefined && column.scale !== undefined && { scale: column.scale }),
    notes: [],
  };
}

/** SQLite's type affinity of a declared type (https://www.sqlite.org/datatype3.html, 3.1). */
function affinity(declared: string): 'integer' | 'text' | 'blob' | 'real' | 'numeric' | 'none' {
  const type = declared.toLowerCase();
  if (type.includes('int')) return 'integer';
  if (/char|clob|text/.test(type)) return 'text';
  if (type === '') return 'none';
  if (type.includes('blob')) return 'blob';
  if (/real|floa|doub/.test(type)) return 'real';
  return 'numeric';
}

/** Names that usually hold JSON, checked against the values before a column is called JSON. */
const jsonNames =
  /(^|_)(json|settings|meta|metadata|options|preferences|payload|attributes|properties|config|extra|data)$/;

function sqliteKind(column: ColumnModel): Kind | { skip: string } {
  const declared = column.type.toLowerCase();
  const name = snakeCase(column.name);
  const samples = column.samples;
  const kind = affinity(declared);
  if (column.json) return { type: 'json', notes: ['JSON: a json_valid check'] };
  if (declared.includes('json')) return { type: 'json', notes: [] };
  if (declared === 'boolean' || declared === 'bool' || /^tinyint\(1\)$/.test(declared))
    return { type: 'boolean', notes: [] };
  if (declared === 'date') return { type: 'date', notes: [] };

  const declaredDatetime = /datetime|timestamp/.test(declared);
  const namedDatetime = /_at$/.test(name) && ['integer', 'text', 'none'].includes(kind);
  if (declaredDatetime || namedDatetime) {
    const shape = datetimeShape(samples ?? []);
    if (shape.storage) return { type: 'datetime', storage: shape.storage, notes: [shape.note] };
    if (shape.other === undefined) {
      // No values: decided with the table's other datetimes (resolvePendingStorage).
      const family = kind === 'integer' ? 'integer' : kind === 'text' ? 'text' : 'any';
      if (family === 'integer') return { type: 'integer', pendingStorage: family, notes: [] };
      return { type: 'datetime', pendingStorage: family, notes: [] };
    }
    if (kind === 'integer') return { type: 'integer', notes: [] };
    return {
      type: 'string',
      notes: [`values like ${JSON.stringify(shape.other)} are in no datetime form the service reads`],
    };
  }

  if (kind === 'integer') {
    if (/^(is|has)_/.test(name)) return { type: 'boolean', notes: ['boolean: named like one'] };
    return { type: 'integer', ...(declared.includes('bigint') && { big: true }), notes: [] };
  }
  if (kind === 'real') return { type: 'decimal', notes: [] };
  if (kind === 'numeric') {
    if (/^(numeric|decimal)/.test(declared)) return decimal(column);
    return { type: 'string', notes: [] };
  }
  if (kind === 'blob') return { skip: 'binary data has no column kind' };
  // Text, or no declared type: the values decide (JSON objects, numbers).
  const values = samples ?? [];
  if (values.length > 0 && values.every(isJsonText))
    return { type: 'json', notes: [`JSON: ${values.length} sampled values are JSON`] };
  if (values.length > 0 && values.every((value) => typeof value === 'string' && dateForm.test(value)))
    return { type: 'date', notes: [`date: ${values.length} sampled values are YYYY-MM-DD`] };
  if (kind === 'none' && values.length > 0 && values.every((value) => typeof value === 'number'))
    return values.every(Number.isInteger) ? { type: 'integer', notes: [] } : { type: 'decimal', notes: [] };
  if (values.length === 0 && jsonNames.test(name))
    return { type: 'string', notes: ['may hold JSON (no values to check): declare it json if so'] };
  return { type: 'string', notes: [] };
}

/** A JSON object or array written as text. */
function isJsonText(value: SampleValue): boolean {
  if (typeof value !== 'string') return false;
  const text = value.trim();
  if (!(text.startsWith('{') && text.endsWith('}')) && !(text.startsWith('[') && text.endsWith(']')))
    return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const dateForm = /^\d{4}-\d{2}-\d{2}$/;
const textForm = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/;
const isoForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** Plausible instants: seconds from 1970 to 2286, milliseconds from 1973 on. */
const SECONDS_MAX = 1e10;
const MILLISECONDS_MIN = 1e11;

/** How sampled values store their instants; `other` holds a value that fits no form. */
export function datetimeShape(samples: readonly SampleValue[]): {
  storage?: DatetimeStorage;
  note: string;
  other?: SampleValue;
} {
  if (samples.length === 0) return { note: 'no values' };
  const count = `${samples.length} sampled value${samples.length === 1 ? '' : 's'}`;
  if (samples.every((value) => typeof value === 'number' && Number.isInteger(value) && value >= 0)) {
    const numbers = samples as number[];
    if (numbers.every((value) => value <= SECONDS_MAX))
      return { storage: 'unix-seconds', note: `unix seconds (${count})` };
    if (numbers.every((value) => value >= MILLISECONDS_MIN))
      return { storage: 'unix-milliseconds', note: `unix milliseconds (${count})` };
  }
  if (samples.every((value) => typeof value === 'string' && textForm.test(value)))
    return { storage: 'text', note: `text YYYY-MM-DD HH:MM:SS (${count})` };
  if (samples.every((value) => typeof value === 'string' && isoForm.test(value)))
    return { storage: 'iso', note: `ISO text …T…Z (${count})` };
  // The first value whose form differs from the first value's: what a reader should look at.
  const form = (value: SampleValue) =>
    typeof value === 'number'
      ? 'number'
      : textForm.test(value)
        ? 'text'
        : isoForm.test(value)
          ? 'iso'
          : value;
  const first = form(samples[0] as SampleValue);
  return { note: 'mixed forms', other: samples.find((value) => form(value) !== first) ?? samples[0] };
}

/**
 * A SQLite datetime-looking column with no values: it takes the storage its table's sampled
 * datetimes agree on (within what its declared type can hold), else an assumption said in its comment.
 */
function resolvePendingStorage(
  plan: ColumnPlan,
  column: ColumnModel,
  family: 'integer' | 'text' | 'any',
  columns: ColumnPlan[],
): void {
  const fits = (storage: DatetimeStorage) =>
    family === 'any' ||
    (family === 'integer' ? storage.startsWith('unix-') : storage === 'text' || storage === 'iso');
  const siblings = new Set(
    columns
      .filter((other) => other !== plan && other.type === 'datetime' && other.storage !== undefined)
      .map((other) => other.storage as DatetimeStorage),
  );
  const [agreed] = siblings;
  if (siblings.size === 1 && agreed && fits(agreed)) {
    plan.type = 'datetime';
    plan.storage = agreed;
    plan.notes.push(`no values to sample: stored as the table's other datetimes`);
    return;
  }
  if (family === 'integer') {
    plan.notes.push(
      `named like a datetime, but no values tell seconds from milliseconds: declare { type: 'datetime', storage: 'unix-seconds' } if it is one`,
    );
    return;
  }
  plan.storage = 'text';
  plan.notes.push(`no values to sample: assumed text YYYY-MM-DD HH:MM:SS (${column.type || 'no type'})`);
}
