import { type RawBuilder, sql } from 'kysely';
import type { ResolvedResource } from '../resource/registry.js';
import type { CapturedTable, ChangeLogSql } from '../sql/change-log.js';
import type { DynamicDb } from '../sql/dialect.js';

/** The default name of the change log's table. */
export const DEFAULT_LOG = 'live_changes';

/**
 * How the service's own writes record their changes: in the write's transaction, after its statements,
 * so a change is in the log exactly when it is committed. Where the table has the capture triggers
 * (`resource-query-service live setup --triggers`), they record every write, the service's too, and
 * these do nothing.
 */
export interface ChangeCapture {
  /**
   * The row's image under the alias `t0`, for the write's locked lookup to select with the row (so the
   * image before a change costs no statement of its own); undefined where nothing is recorded.
   */
  readonly image?: RawBuilder<unknown>;
  /** Records a created row. */
  created(trx: DynamicDb, id: unknown): Promise<void>;
  /** Records an updated row (a soft delete and a restore are updates), from its image before. */
  updated(trx: DynamicDb, id: unknown, before: string | null): Promise<void>;
  /** Records a deleted row. */
  deleted(trx: DynamicDb, id: unknown, before: string | null): Promise<void>;
  /** After the write's transaction committed: wakes the instances' hubs (a no-op without a bus). */
  committed(): void;
}

/** What a write records where nothing is recorded (no live streams, or triggers do it). */
export const noCapture: ChangeCapture = {
  created: async () => undefined,
  updated: async () => undefined,
  deleted: async () => undefined,
  committed: () => undefined,
};

/** An image as a driver read it (PostgreSQL's jsonb parsed, the others' text), as the log's text. */
export function imageText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The table and columns the log's images of a resource's rows hold. */
export function capturedTable(resource: ResolvedResource): CapturedTable {
  return {
    table: resource.table,
    key: resource.keyColumns,
    // SQLite's json_object refuses a blob, and a binary value tells no one who may see a row.
    columns: [...resource.columns.values()].filter((c) => c.type !== 'binary').map((c) => c.name),
  };
}

/** The capture of one resource's writes into the log `log`. */
export function changeCapture(
  resource: ResolvedResource,
  changeLog: ChangeLogSql,
  log: string,
  committed: () => void,
): ChangeCapture {
  const { table, columns } = capturedTable(resource);
  const key = resource.primaryKey ?? '';
  const image = changeLog.image('t0', columns);
  const record = async (
    trx: DynamicDb,
    op: 'i' | 'u' | 'd',
    id: unknown,
    before: string | null,
  ): Promise<void> => {
    const values = sql`${table}, ${String(id)}, ${op}, ${changeLog.bound(before)}`;
    const into = sql`insert into ${sql.table(log)} (table_name, row_key, op, before_image, after_image)`;
    if (op === 'd') await sql`${into} values (${values}, null)`.execute(trx);
    else
      await sql`${into} select ${values}, ${image} from ${sql.table(table)} as t0 where t0.${sql.ref(key)} = ${id}`.execute(
        trx,
      );
  };
  return {
    image,
    created: (trx, id) => record(trx, 'i', id, null),
    updated: (trx, id, before) => record(trx, 'u', id, before),
    deleted: (trx, id, before) => record(trx, 'd', id, before),
    committed,
  };
}
