import type { DatetimeStorage } from '../resource/types.js';
import type { DialectName } from '../sql/dialect.js';
import { resolvePendingStorage, type StorageFamily, sharedDatetimeStorage } from './datetime-storage.js';
import { type Link, uniqueColumns } from './keys.js';
import { columnKind } from './kinds.js';
import type { ColumnModel, TableModel } from './model.js';
import { isSensitive, snakeCase } from './names.js';
import type { ColumnPlan, SkippedColumn } from './plan-types.js';

/**
 * A resource's columns: each one's kind, options and comment, the columns no kind fits, and the
 * datetime storage they share.
 */
export function planColumns(
  dialect: DialectName,
  table: TableModel,
  primaryKey: string,
  links: Link[],
): { columns: ColumnPlan[]; skippedColumns: SkippedColumn[]; datetimeStorage?: DatetimeStorage } {
  const unique = uniqueColumns(table);
  const outgoing = new Map(
    links.filter((link) => link.table === table.name).map((link) => [link.column, link]),
  );

  // Kinds first; SQLite datetimes without values take their siblings' storage afterwards.
  const columns: ColumnPlan[] = [];
  const skippedColumns: SkippedColumn[] = [];
  const pending: { plan: ColumnPlan; column: ColumnModel; family: StorageFamily }[] = [];
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
        ...(unique.has(column.name) && !isKey ? ['unique'] : []),
        ...(link ? [`→ ${link.target}.${link.targetColumn}`] : []),
        ...kind.notes,
        ...(hidden ? ['hidden: looks sensitive'] : []),
      ],
    };
    columns.push(plan);
    if (kind.pendingStorage) pending.push({ plan, column, family: kind.pendingStorage });
  }
  for (const { plan, column, family } of pending) resolvePendingStorage(plan, column, family, columns);

  const datetimeStorage = sharedDatetimeStorage(columns);
  return { columns, skippedColumns, ...(datetimeStorage && { datetimeStorage }) };
}

/** The column that marks deleted rows (`deleted_at`), noted in its comment. */
export function findSoftDelete(columns: ColumnPlan[]): ColumnPlan | undefined {
  const softDelete = columns.find(
    (column) => snakeCase(column.name) === 'deleted_at' && column.type === 'datetime' && column.nullable,
  );
  if (softDelete) softDelete.notes.push('soft delete');
  return softDelete;
}
