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
  keyColumns: readonly string[],
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
    const isKey = keyColumns.includes(column.name);
    const link = outgoing.get(column.name);
    const hidden = !isKey && !link && isSensitive(column.name);
    const text = kind.type === 'string' ? textSize(dialect, column) : undefined;
    const { values } = kind;
    const plan: ColumnPlan = {
      name: column.name,
      type: kind.type,
      ...(text && { text: text.size }),
      ...(text?.length !== undefined && { length: text.length }),
      ...(values && { values }),
      ...(column.generated && { generated: true }),
      ...(kind.big && { big: true }),
      ...(kind.precision !== undefined && { precision: kind.precision }),
      ...(kind.scale !== undefined && { scale: kind.scale }),
      ...(kind.storage && { storage: kind.storage }),
      nullable: !isKey && column.nullable,
      primaryKey: isKey,
      hidden,
      required: !column.nullable && !column.hasDefault && !column.autoIncrement && !column.generated,
      notes: [
        column.type || 'no declared type',
        ...(isKey ? ['primary key'] : []),
        ...(column.autoIncrement ? ['auto-increment'] : []),
        ...(column.generated ? ['generated: read-only'] : []),
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

/** Char-like types by engine: compared with LIKE everywhere, short enough to search and show. */
const charTypes: Record<DialectName, RegExp> = {
  postgres: /^(varchar|bpchar|char|citext)$/,
  mysql: /^(varchar|char)$/,
  sqlite: /char/,
};
const longTypes: Record<DialectName, RegExp> = {
  postgres: /^text$/,
  mysql: /text$/,
  sqlite: /^(text|clob)$|^$/,
};

/** A string column's size: short (char/varchar up to 255, or without a length), long (text), or neither (uuid, enum, time…). */
function textSize(
  dialect: DialectName,
  column: ColumnModel,
): { size: 'short' | 'long'; length?: number } | undefined {
  const base = column.baseType;
  const length = /\(\s*(\d+)\s*\)/.exec(column.type)?.[1];
  if (charTypes[dialect].test(base) && !/text|clob/.test(base)) {
    if (length === undefined) return { size: 'short' };
    return { size: Number(length) <= 255 ? 'short' : 'long', length: Number(length) };
  }
  if (longTypes[dialect].test(base)) return { size: 'long' };
  return undefined;
}

/** Names that usually name a record, best first: `name`, `title`, `label`, then `*_name`, `username`, `email`… */
const labelNames = [
  /^(name|title|label)$/,
  /^(display_name|full_name|username|user_name)$/,
  /_(name|title|label)$/,
  /^(email|slug|code)$/,
];

/**
 * The column that names a record: the first NOT NULL text column named like a name (by the order of
 * `labelNames`), else a nullable one so named, else the first short text column. Long text named like
 * one counts (PostgreSQL `text` names, SQLite `TEXT` everywhere); other long text does not.
 */
export function labelColumn(columns: ColumnPlan[]): ColumnPlan | undefined {
  const texts = columns.filter(
    (column) => column.type === 'string' && column.text !== undefined && !column.hidden && !column.primaryKey,
  );
  for (const nullable of [false, true])
    for (const pattern of labelNames) {
      const found = texts.find(
        (column) => column.nullable === nullable && pattern.test(snakeCase(column.name)),
      );
      if (found) return found;
    }
  return texts.find((column) => column.text === 'short');
}
