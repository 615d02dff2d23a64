import type { Action, AggregatePolicy, AllLimit, IncludeConstraintPolicy } from '../resource/policy.js';
import type { SchemaDeclaration } from '../resource/schema-declaration.js';
import type { ColumnType, DatetimeStorage, RelationDefinition } from '../resource/types.js';
import type { DialectName } from '../sql/dialect.js';

/**
 * The decisions `init` takes from a `DatabaseModel`, before any text is written: which tables become
 * resources, each column's kind and options, relations, soft deletes, datetime storage, endpoints.
 * `planConfig` (plan.ts) is pure; `generateConfig` (generate.ts) renders its result.
 */
export interface ConfigPlan {
  dialect: DialectName;
  schema: string;
  resources: ResourcePlan[];
  /** Tables that are not resources, and why. */
  skipped: SkippedTable[];
  /** `init --writable`: the endpoints of tables create, update and delete. */
  writable: boolean;
  /** `CREATE INDEX` statements that would serve the sorts no index serves: printed by `init`, never run. */
  indexAdvice: string[];
}

export interface SkippedTable {
  table: string;
  reason: string;
}

/** A key as a list of columns, whether it has one or several. */
export function keyColumnsOf(resource: Pick<ResourcePlan, 'primaryKey'>): string[] {
  return typeof resource.primaryKey === 'string' ? [resource.primaryKey] : resource.primaryKey;
}

export interface ResourcePlan {
  name: string;
  table: string;
  /** The module's variable for the resource. */
  variable: string;
  /** The key column, or the columns of a composite key (served read-only). */
  primaryKey: string | string[];
  columns: ColumnPlan[];
  /** Columns left out (no column kind fits them), and why. */
  skippedColumns: SkippedColumn[];
  relations: RelationPlan[];
  /** A view: served read-only, under a key its name gives (tables.ts). */
  view: boolean;
  /** The column that names a record (`name`, `title`, a last name): searched, sorted, related records' filters and sorts. */
  labelColumn?: string;
  /** The columns a record's title is made of (`['FirstName', 'LastName']`); absent: titled by its key. */
  titleColumns?: string[];
  /** Rows the distinct counts read (`TableModel.sampledRows`). */
  sampledRows?: number;
  softDeleteColumn?: string;
  /** SQLite: the storage all datetime columns share, written once (`storage: { datetime }`). */
  datetimeStorage?: DatetimeStorage;
  /** Facts for the comment above the resource: unique constraints, relations not made. */
  notes: string[];
  endpoint: EndpointPlan;
}

export interface SkippedColumn {
  name: string;
  reason: string;
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
  /** NOT NULL without a default or an auto-increment: a create must give it. */
  required: boolean;
  /** String columns: `short` for char/varchar up to 255 (or no length), `long` for text types. */
  text?: 'short' | 'long';
  /** A char/varchar column's declared length. */
  length?: number;
  /** Enum and set columns: the values the column takes (when the column's kind reads them). */
  values?: readonly string[];
  /** Computed by the database: shown, never an input. */
  generated?: boolean;
  /** Text and enum columns: distinct values among the sampled rows (`ColumnModel.distinct`). */
  distinct?: number;
  /** Facts for the column's comment: declared type, keys, uniqueness, how a kind was detected. */
  notes: string[];
}

/** A relation as the configuration declares it, under the name the resource gives it. */
export type RelationPlan = RelationDefinition & { name: string };

export interface EndpointPlan {
  resource: string;
  allowedFilters: string[];
  allowedSorts: string[];
  allowedIncludes: string[];
  allowedCounts: string[];
  allowedSearch: string[];
  /** Per to-many include path: what `include_filter`, `include_sort`, `include_limit` may use. */
  includeConstraints: Record<string, IncludeConstraintPolicy>;
  /** `all=true` up to this many records. */
  allowAll: number;
  /** Exports (CSV, NDJSON): streamed, whatever the table's size. */
  allowExport: AllLimit;
  /** The aggregate route: count, measures, groups and date buckets. */
  aggregates: AggregatePolicy;
  /** Allowed sorts on columns no index leads (their `CREATE INDEX` is in `ConfigPlan.indexAdvice`). */
  unindexedSorts: string[];
  defaultSort: string;
  /** The actions served: `list` and `read`, and the writes when `init --writable` (never on a view). */
  actions: Action[];
  /** The schema document (table, form, detail) for the admin UI. */
  schema: SchemaDeclaration;
  /** Facts for the comment above the endpoint: what is not in the form, why an action is missing. */
  notes: string[];
}
