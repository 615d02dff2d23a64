import type { DialectName } from '../sql/dialect.js';

/**
 * What `init` read from a database: plain data, no connection, so that the generator is a pure
 * function of it (`generateConfig`). `introspect.ts` fills it from each engine's catalog; tests may
 * also write one by hand.
 */
export interface DatabaseModel {
  dialect: DialectName;
  /** PostgreSQL: the schema read (`public`); MariaDB: the database; SQLite: `main`. */
  schema: string;
  /** Tables and views, in the catalog's order (by name). */
  tables: TableModel[];
}

export interface TableModel {
  name: string;
  isView: boolean;
  /** Columns in their declared order. */
  columns: ColumnModel[];
  /** The primary key's columns in key order; empty when the table has none. */
  primaryKey: string[];
  foreignKeys: ForeignKeyModel[];
  /** Indexes, including those behind unique constraints; not the primary key's own index. */
  indexes: IndexModel[];
  /** How many rows the distinct counts read (at most `distinctSampleRows`); absent: not measured. */
  sampledRows?: number;
}

/** A sampled non-null value, as the driver returned it. */
export type SampleValue = string | number;

export interface ColumnModel {
  name: string;
  /**
   * The declared type as the engine shows it: PostgreSQL `format_type` (`numeric(12,2)`,
   * `timestamp with time zone`), MariaDB `COLUMN_TYPE` (`bigint(20) unsigned`, `tinyint(1)`), SQLite
   * the declaration itself (`DATETIME`, `varchar(255)`, `` for none).
   */
  type: string;
  /**
   * The base type's name, lower-cased: PostgreSQL `pg_type.typname` (`int8`, `timestamptz`, `jsonb`,
   * an enum's name), MariaDB `DATA_TYPE` (`bigint`, `longtext`), SQLite the declaration without its
   * arguments (`datetime`, `varchar`).
   */
  baseType: string;
  /**
   * PostgreSQL's type category (`pg_type.typcategory`: `N` numeric, `S` string, `E` enum, `A` array,
   * `D` date/time, `B` boolean, `U` user-defined — json is `U`); absent elsewhere.
   */
  category?: string;
  /** PostgreSQL enum columns: the type's labels in their order (MariaDB's are in `type`). */
  values?: string[];
  /** Computed by the database (a generated column): never written. */
  generated?: boolean;
  nullable: boolean;
  autoIncrement: boolean;
  hasDefault: boolean;
  /** Decimal columns: declared total digits and digits after the point (`numeric(12, 2)`). */
  precision?: number;
  scale?: number;
  /**
   * The engine says the column holds JSON: PostgreSQL json/jsonb, MySQL json, MariaDB's JSON alias
   * (longtext with a `json_valid` check), a SQLite column with a `json_valid` check.
   */
  json?: boolean;
  /**
   * Up to 50 non-null values (SQLite only: the declared type does not tell how a datetime is stored,
   * nor whether text holds JSON). Absent: not sampled; empty: sampled, no values.
   */
  samples?: SampleValue[];
  /** Text and enum columns: distinct values among the table's first rows (`TableModel.sampledRows`). */
  distinct?: number;
  comment?: string;
}

export interface ForeignKeyModel {
  name?: string;
  /** Columns of this table, in key order. */
  columns: string[];
  referencedTable: string;
  /** Columns of the referenced table; empty when the engine leaves them implicit (its primary key). */
  referencedColumns: string[];
}

export interface IndexModel {
  name: string;
  /** Columns in index order; `null` for an expression. */
  columns: (string | null)[];
  unique: boolean;
  /** A partial index (`where …`): its uniqueness covers only some rows. */
  partial?: boolean;
}
