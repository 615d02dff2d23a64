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
  skippedColumns: SkippedColumn[];
  relations: RelationPlan[];
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
  defaultSort: string;
}
