import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { ArrayElement, ColumnType } from '../kinds/index.js';

export type { ColumnType };

/**
 * How a datetime column stores its instants (always UTC):
 * - `native`: the engine's datetime type (PostgreSQL `timestamp`/`timestamptz`, MariaDB `DATETIME`/
 *   `TIMESTAMP`); on SQLite, which has none, the same as `text`.
 * - `text`: `YYYY-MM-DD HH:MM:SS[.ffffff]` — SQLite's `CURRENT_TIMESTAMP`, Laravel, Rails, Django.
 * - `iso`: `YYYY-MM-DDTHH:MM:SS.sssZ` — JavaScript's `toISOString()`, always with milliseconds.
 * - `unix-seconds`, `unix-milliseconds`: an integer count since 1970-01-01 UTC (Drizzle, Prisma setups).
 */
export type DatetimeStorage = 'native' | 'text' | 'iso' | 'unix-seconds' | 'unix-milliseconds';

/**
 * How a boolean column stores its values: `native` (the engine's boolean; 0/1 on SQLite and MariaDB),
 * `integer` (0/1 in an integer column on any engine), `text` (`'t'`/`'f'`: PostgreSQL's text form, older
 * Rails on SQLite).
 */
export type BooleanStorage = 'native' | 'integer' | 'text';

export interface ColumnOptions {
  type: ColumnType;
  /**
   * Datetime and boolean columns: how the values are stored (default: the resource's `storage`, else
   * `native`).
   */
  storage?: DatetimeStorage | BooleanStorage;
  /**
   * Never selected, filtered, sorted or searched (a password hash, a token). `*` does not reach it either.
   */
  hidden?: boolean;
  /** Integer columns only: the column is 64-bit, so values up to Number.MAX_SAFE_INTEGER are accepted. */
  big?: boolean;
  /**
   * Whether the column can hold NULL (default `true`; the primary key never does). The database's own
   * answer, read at start-up, wins over this declaration; it counts where the service cannot read it
   * (`introspect: false`, a column the catalog does not list). A NOT NULL column is sorted and paged
   * by cursor with the plain SQL an index serves; a nullable one carries the NULL handling.
   */
  nullable?: boolean;
  /**
   * Decimal columns: total digits and digits after the point, as in `numeric(12, 2)`. A written value
   * outside them is a 422 on every engine (SQLite would store it as it is; the others refuse or round).
   */
  precision?: number;
  scale?: number;
  /**
   * Enum and set columns: the values the column takes, in the database's order (`init` copies them from
   * the catalog). A filter value outside them is a 422 naming them.
   */
  values?: readonly string[];
  /**
   * Array columns: the kind of their elements (`string`, `integer`, `bigint`, `decimal`, `boolean`,
   * `date`, `uuid`), which a filter's members are coerced to (a value it cannot be is a 422 naming the
   * filter). Default: read from the catalog's type at start-up (`integer[]` → `integer`); else text.
   */
  of?: ArrayElement;
  /**
   * Computed by the database (a generated column; an identity column the database always fills): read,
   * filtered and sorted like any other, never written. A form input for it is refused at start-up.
   */
  generated?: boolean;
}

/** A column is declared either by its kind alone or with options. */
export type ColumnSpec = ColumnType | ColumnOptions;

/** `ExpressionBuilder` over a schema the service only knows at run time. */
// biome-ignore lint/suspicious/noExplicitAny: table and column names come from resource definitions at run time.
export type DynamicExpressionBuilder = ExpressionBuilder<any, any>;

/**
 * What every condition callback receives. `column(name)` is a reference to a column of the
 * resource's table under the alias used in this query, so the condition also works inside
 * `and`/`or` groups and relation sub-queries; `ctx` is the request's context (who is asking), as
 * the host's `context` hook made it.
 */
export interface ConditionArgs<Ctx = unknown> {
  eb: DynamicExpressionBuilder;
  column: (name: string) => Expression<unknown>;
  ctx: Ctx;
}

/** What a named scope or a custom filter receives: the condition arguments and the client's value. */
export interface ConditionContext<V, Ctx = unknown> extends ConditionArgs<Ctx> {
  value: V;
}

/**
 * A callback of the request's context. Declared as a method so that parameters are compared
 * bivariantly (the device of React's typings): a configuration typed with its own context type fits
 * where the core and the host adapters take any context, while the callbacks themselves stay typed.
 */
export type ContextCallback<Args, Result> = { bivarianceHack(args: Args): Result }['bivarianceHack'];

/** A named scope: `filter[<scope>]=true|1|false|0` calls it with the normalized boolean. */
export type ScopeCallback<Ctx = unknown> = ContextCallback<
  ConditionContext<boolean, Ctx>,
  Expression<SqlBool>
>;

/**
 * The rows of a resource this request may see, wherever the resource is read (list, relation
 * filters, counts, includes, search, writes). `undefined`: no restriction for this context.
 */
export type RowScope<Ctx = unknown> = ContextCallback<ConditionArgs<Ctx>, Expression<SqlBool> | undefined>;

/**
 * A custom filter receives the client's value as sent (a string, or an array / object for bracketed
 * forms), and returns a condition. It is responsible for validating the value: throw a
 * `FilterValueError` to answer 422 with its message.
 */
export type CustomFilterCallback<Ctx = unknown> = ContextCallback<
  ConditionContext<CustomFilterValue, Ctx>,
  Expression<SqlBool>
>;

export type CustomFilterValue = string | CustomFilterValue[] | { [key: string]: CustomFilterValue };

export interface BelongsTo {
  kind: 'belongsTo';
  /** Name of the related resource. */
  resource: string;
  /** Column on this table that holds the related key. */
  foreignKey: string;
  /** Column on the related table; defaults to its primary key. */
  ownerKey?: string;
}

export interface HasOneOrMany {
  kind: 'hasOne' | 'hasMany';
  resource: string;
  /** Column on the related table that points back to this table. */
  foreignKey: string;
  /** Column on this table; defaults to its primary key. */
  localKey?: string;
}

export interface BelongsToMany {
  kind: 'belongsToMany';
  resource: string;
  /** The pivot table. */
  pivot: string;
  /** Pivot column that points to this table. */
  foreignPivotKey: string;
  /** Pivot column that points to the related table. */
  relatedPivotKey: string;
  /** Column on this table; defaults to its primary key. */
  parentKey?: string;
  /** Column on the related table; defaults to its primary key. */
  relatedKey?: string;
}

export type RelationDefinition = BelongsTo | HasOneOrMany | BelongsToMany;

/** What exists: a table, its columns and relations. Clients never name anything that is not here. */
export interface ResourceDefinition<Ctx = unknown> {
  /** Name used in URLs (`/api/<name>`) and by relations. */
  name: string;
  /** Table name (may be schema-qualified: `public.users`). */
  table: string;
  /**
   * Defaults to `id`. Several columns for a composite key (`['film_id', 'actor_id']`): lists, filters,
   * includes and cursors work as for one; a record is read at `<path>/<value>,<value>` (in key order),
   * and is not written through the service (start-up refuses write actions on such an endpoint).
   */
  primaryKey?: string | readonly string[];
  columns: Record<string, ColumnSpec>;
  relations?: Record<string, RelationDefinition>;
  scopes?: Record<string, ScopeCallback<Ctx>>;
  /** A nullable datetime column; rows where it is set are hidden unless the `trashed` filter says otherwise. */
  softDeleteColumn?: string;
  /**
   * An integer column every update increments: the record's ETag then comes from it rather than from
   * the record's content, and PATCH increments it.
   */
  versionColumn?: string;
  /** Resource-wide storage conventions; a column's own `storage` wins. */
  storage?: { datetime?: DatetimeStorage; boolean?: BooleanStorage };
  /**
   * Row-level scope: the rows the request's context may see (a tenant's). It applies wherever this
   * resource is read — as the listed resource, through relation filters, counts, includes, search and
   * PATCH — so rows outside it cannot be observed through any path. Runs on every request.
   */
  scope?: RowScope<Ctx>;
}

export type Scalar = string | number | boolean;
/**
 * A default filter value, written as a client would send it: a scalar for equality, or a map from
 * operator to value (`{ gte: 10 }`, `{ in: ['a', 'b'] }`).
 */
export type DefaultFilterValue = Scalar | Record<string, Scalar | Scalar[]>;
