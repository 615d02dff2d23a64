/**
 * What a column kind is, once: the operators that apply to it, how a client's text becomes a value of
 * it, how a stored value is answered, its JSON Schema, how a table and a form show it, and which engine
 * types hold it. Each kind is one file of this folder; the stages (plan, sql, load, schema, openapi,
 * init) read the `kinds` table (index.ts) and keep no table of their own. How an engine stores or binds
 * a kind differently is the engine's dialect (`SqlDialect.kinds`, src/sql/dialects/<engine>.ts).
 */
import type { OperatorName } from './operators.js';

export type Scalar = string | number | boolean;

/** A coerced value, or the reason the text cannot be one (completes "… must be <reason>"). */
export type Coerced<T> = { ok: true; value: T } | { ok: false; expected: string };

export const ok = <T>(value: T): Coerced<T> => ({ ok: true, value });
export const fail = (expected: string): Coerced<never> => ({ ok: false, expected });

/** A JSON Schema (2020-12, OpenAPI 3.1's dialect) as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** How a table shows a column (the schema document's `table.columns[].type`). */
export type TableColumnType = 'number' | 'text' | 'badge' | 'date' | 'datetime' | 'boolean' | 'json';

/** How a form edits a value (the schema document's `form.inputs[].type`). */
export type InputType =
  | 'text'
  | 'email'
  | 'password'
  | 'textarea'
  | 'select'
  | 'checkbox'
  | 'switch'
  | 'date'
  | 'number'
  /** A set of related keys: a `belongsToMany` relation's links (`InputDeclaration.relation`). */
  | 'references';

/** The facts of a declared column that a kind's rules read (a resolved column has them all). */
export interface KindColumn {
  readonly big: boolean;
  readonly precision?: number;
  readonly scale?: number;
  /** Enum and set columns: the values the column takes, in the database's order. */
  readonly values?: readonly string[];
  /**
   * Array columns: the kind of their elements (one of `arrayElements`, src/kinds/array.ts), declared
   * (`of`) or told by the catalog's type (`_int4` → `integer`). Absent: elements are taken as text.
   */
  readonly of?: string;
  /**
   * The column's type as the catalog names it, where a kind asks for it (`Kind.fromCatalog`) and the
   * catalog was read: what a PostgreSQL array's bound members are cast to (`_int4`, `_mood`), the
   * engine type that holds fewer values than the kind (MariaDB's YEAR under `integer`), whether a
   * `decimal` is a DECIMAL (MariaDB's sums check the units of others, `SqlDialect.scaledUnits`).
   */
  readonly catalogType?: CatalogType;
}

/** A type as the catalog names it: a pg_type name, and its schema when the catalog gives one. */
export interface CatalogType {
  readonly name: string;
  readonly schema?: string;
  /** The engine whose catalog names it; absent on SQLite, whose declared types are only affinities. */
  readonly engine?: CatalogEngine;
}

/** What a column's catalog type tells its kind (`Kind.fromCatalog`). */
export type CatalogFacts = Pick<KindColumn, 'of' | 'catalogType'>;

/** The engines whose catalogs name types (SQLite's declared types are read by `init` from values). */
export type CatalogEngine = 'postgres' | 'mysql';

/** The options a column declaration may carry beside its kind (checked in resource/columns.ts). */
export type KindOption = 'storage' | 'big' | 'precision' | 'scale' | 'values' | 'of';

export interface Kind {
  /** Its name in messages: "filter "x" (a uuid column)". */
  readonly label: string;
  /** The filter operators that apply; any other is refused naming these. */
  readonly operators: readonly OperatorName[];
  /** Whether its values have an order every engine agrees on (sorts, cursors, gt/lt). */
  readonly ordered: boolean;
  /**
   * A client's text (filter values, cursor values, record keys in paths) → the value bound to SQL, or
   * why it cannot be one. A value the kind cannot hold is refused here, so the database never sees it.
   */
  coerce(column: KindColumn, text: string): Coerced<Scalar>;
  /** A stored value (as any engine's driver returns it) → its answer; absent: answered as it is. */
  readonly read?: (value: unknown) => unknown;
  /**
   * A string written to the column (a form's text or select input) is checked and normalized by
   * `coerce`, as a filter value is: kinds whose text the database would otherwise refuse.
   */
  readonly checksWrites: boolean;
  /** The JSON Schema of an answered value, NULL aside. */
  schema(column: KindColumn): JsonSchema;
  /**
   * Kinds that hold members (array, set, json's arrays): the JSON Schema of one member, which is what
   * their filter values (`has_all`, `has_any`) are and what `coerce` reads. Absent: a filter value is a
   * value of `schema`.
   */
  readonly member?: (column: KindColumn) => JsonSchema;
  /**
   * Facts the catalog's type of a column tells, read at start-up where the declaration leaves them out
   * (an array's element kind and its type, to cast bound members to). Absent: the kind needs none.
   */
  readonly fromCatalog?: (type: CatalogType) => CatalogFacts;
  /** How a table shows it (badge for a column of known values). */
  readonly table: TableColumnType;
  /** The form input that edits it; absent: it is not edited through forms (read-only). */
  readonly input?: InputType;
  /** Options a declaration of this kind may carry. */
  readonly options: readonly KindOption[];
  /**
   * Engine types (as the catalog names them: pg_type names, information_schema DATA_TYPE) whose values
   * this kind reads correctly: what start-up verification accepts under a declaration of this kind.
   */
  readonly serves: Readonly<Record<CatalogEngine, readonly string[]>>;
  /**
   * Engine types `init` declares as this kind, by their name alone (a type that needs more — a width, a
   * sign, a precision, an enum's values — is decided in init/kinds.ts first). Absent: none.
   */
  readonly declaredFor?: Readonly<Partial<Record<CatalogEngine, readonly string[]>>>;
}
