import type { QueryExecutorProvider, RawBuilder, SqlBool } from 'kysely';

/** A table whose changes are recorded: its name as configured, its key's columns, the columns its images hold. */
export interface CapturedTable {
  readonly table: string;
  readonly key: readonly string[];
  /** The columns an image holds where the engine cannot take the whole row (binary ones left out). */
  readonly columns: readonly string[];
}

/**
 * What differs between the engines for the change log of live streams (`live/`). The log is one table:
 * `seq` (the order changes were recorded in), `table_name`, `row_key` (the key as a record's URL writes
 * it), `op` (`i`, `u`, `d`), `before_image` and `after_image` (the row as JSON before and after, null
 * where there is none) and `recorded_at`.
 */
export interface ChangeLogSql {
  /** The statements that create the log and its index where they are missing. */
  create(log: string): RawBuilder<unknown>[];
  /** The statements that drop the log. */
  drop(log: string): RawBuilder<unknown>[];
  /** A row's image under `alias`, as the log stores it (PostgreSQL's is the whole row). */
  image(alias: string, columns: readonly string[]): RawBuilder<unknown>;
  /** An image read before, bound back as the log's column takes it. */
  bound(image: string | null): RawBuilder<unknown>;
  /** `recorded_at` older than `ms` milliseconds. */
  olderThan(ms: number): RawBuilder<SqlBool>;
  /** The statements that install the triggers recording every write to `target` (replacing older ones). */
  install(log: string, target: CapturedTable): RawBuilder<unknown>[];
  /** The statements that remove them. */
  remove(log: string, target: CapturedTable): RawBuilder<unknown>[];
  /** Whether `table` has the triggers installed. */
  installed(db: QueryExecutorProvider, log: string, table: string): Promise<boolean>;
  /**
   * How to read images back as rows of `target`'s columns (typed as the table's, so a row scope's
   * conditions compare them as they would the table's rows): a derived table of one row per image of a
   * JSON array, numbered from 1 in the column `n`, for a `FROM … AS <alias>`. Made once per table
   * (MariaDB reads the columns' types from the catalog).
   */
  imageRows(
    db: QueryExecutorProvider,
    target: CapturedTable,
  ): Promise<(images: string) => RawBuilder<unknown>>;
}

/** A trigger's name for one table and operation, within the 64 characters MariaDB allows. */
export function triggerName(log: string, table: string, op: string): string {
  const name = `${log}_${table.replace(/\W/g, '_')}_${op}`;
  if (name.length <= 64) return name;
  // Long names keep a readable start and a digest of the whole, so two tables never share one.
  let hash = 0;
  for (const char of name) hash = (Math.imul(hash, 31) + (char.codePointAt(0) ?? 0)) | 0;
  return `${name.slice(0, 52)}_${(hash >>> 0).toString(16).padStart(8, '0')}_${op}`;
}

/** An identifier quoted for a statement's text with `mark` (names from the configuration, never a client's). */
export function quotedName(name: string, mark: '"' | '`'): string {
  return name
    .split('.')
    .map((part) => `${mark}${part.replaceAll(mark, mark + mark)}${mark}`)
    .join('.');
}

/** The three triggers of an engine that has no trigger for several events: their operation, event and row sides. */
export const captureOps = [
  { op: 'i', event: 'insert', before: null, after: 'new' },
  { op: 'u', event: 'update', before: 'old', after: 'new' },
  { op: 'd', event: 'delete', before: 'old', after: null },
] as const;

/** `'text'` as a standard SQL literal of a statement's text (MariaDB, whose backslashes escape, has its own). */
export function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
