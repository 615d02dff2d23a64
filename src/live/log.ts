import { sql } from 'kysely';
import type { ChangeLogSql } from '../sql/change-log.js';
import type { DynamicDb } from '../sql/dialect.js';

/** A row's image: its columns' values as the log's JSON holds them. */
export type Image = Readonly<Record<string, unknown>>;

/** One change as the log recorded it. */
export interface LoggedChange {
  readonly seq: number;
  readonly table: string;
  /** The key as a record's URL writes it (`7`; a composite key's values joined by commas). */
  readonly key: string;
  readonly before: Image | null;
  readonly after: Image | null;
}

interface LogRow {
  seq: number | string;
  table_name: string;
  row_key: string;
  before_image: unknown;
  after_image: unknown;
}

const imageOf = (value: unknown): Image | null => {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as Image;
};

const changeOf = (row: LogRow): LoggedChange => ({
  seq: Number(row.seq),
  table: row.table_name,
  key: row.row_key,
  before: imageOf(row.before_image),
  after: imageOf(row.after_image),
});

/** The statements live streams read the log with: in `seq` order, from a position, a batch at a time. */
export class ChangeLog {
  constructor(
    private readonly db: DynamicDb,
    private readonly sqlOf: ChangeLogSql,
    readonly table: string,
  ) {}

  /** The changes after `seq` (and those in `also`, ranges of numbers passed over earlier), in order. */
  async after(
    seq: number,
    limit: number,
    also: readonly { from: number; to: number }[] = [],
  ): Promise<LoggedChange[]> {
    const ranges = also.map(({ from, to }) => sql` or seq between ${from} and ${to}`);
    const { rows } = await sql<LogRow>`select seq, table_name, row_key, before_image, after_image
      from ${sql.table(this.table)}
      where seq > ${seq}${sql.join(ranges, sql``)}
      order by seq limit ${limit}`.execute(this.db);
    return rows.map(changeOf);
  }

  /** The changes in (`from`, `to`], in order: a resumed stream's. */
  async between(from: number, to: number): Promise<LoggedChange[]> {
    const { rows } = await sql<LogRow>`select seq, table_name, row_key, before_image, after_image
      from ${sql.table(this.table)} where seq > ${from} and seq <= ${to} order by seq`.execute(this.db);
    return rows.map(changeOf);
  }

  /** The smallest and largest sequence numbers kept (undefined for an empty log). */
  async bounds(): Promise<{ first: number; last: number } | undefined> {
    const { rows } = await sql<{ first: unknown; last: unknown }>`select min(seq) as ${sql.ref('first')},
      max(seq) as ${sql.ref('last')} from ${sql.table(this.table)}`.execute(this.db);
    const row = rows[0];
    if (!row || row.first === null || row.first === undefined) return undefined;
    return { first: Number(row.first), last: Number(row.last) };
  }

  /** Deletes the changes recorded more than `ms` ago. */
  async prune(ms: number): Promise<void> {
    await sql`delete from ${sql.table(this.table)} where ${this.sqlOf.olderThan(ms)}`.execute(this.db);
  }
}
