import type { DatetimeStorage } from '../resource/types.js';
import type { DialectName } from '../sql/dialect.js';
import { resolvePendingStorage, type StorageFamily, sharedDatetimeStorage } from './datetime-storage.js';
import { type Link, uniqueColumns } from './keys.js';
import { columnKind } from './kinds.js';
import type { ColumnModel, TableModel } from './model.js';
import { isSensitive, singularize, snakeCase } from './names.js';
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
      ...(column.distinct !== undefined && { distinct: column.distinct }),
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

/** Names that say what a record is called, best first; a person's first and last names come after the first. */
const nameLike = [/^(name|full_name|display_name)$/, /^(title|label)$/, /^(username|user_name)$/];
/** Then: `*_name`, `*_title`, `*_label` (not a first or last name alone), then identifying text. */
const laterNames = [/_(name|title|label)$/, /^(email|slug|code)$/];
const firstNames = /^(first_name|firstname|given_name|forename)$/;
const lastNames = /^(last_name|lastname|family_name|surname)$/;
/** Text that never titles a record, whatever else it is: addresses, notes, descriptions. */
const neverTitles = /(address|street|note|comment|description|remark|bio|body|content|summary)/;

/**
 * What names a record: `label`, the one column searched, sorted and filtered as the record's name
 * (related records' `artist.Name`), and `title`, the columns a title is made of. In order: a column
 * called `name` (`full_name`, `display_name`) or as its table (`city.city`); a person's first and last names, titled by both and
 * labelled by the last; `title`, `label`; `username`; `*_name`, `*_title`, `*_label`; `email`, `slug`,
 * `code` — NOT NULL ones before nullable ones at each step. Never an address, a note, a description or
 * other long text: a resource without such a column has none, and is titled by its own name and key
 * ("Invoice 412") wherever a record is shown.
 */
export function recordNames(
  table: string,
  columns: ColumnPlan[],
): { label?: ColumnPlan; title?: ColumnPlan[] } {
  const texts = columns.filter(
    (column) =>
      column.type === 'string' &&
      column.text !== undefined &&
      !column.hidden &&
      !column.primaryKey &&
      !neverTitles.test(snakeCase(column.name)),
  );
  const named = (pattern: RegExp, nullable: boolean) =>
    texts.find((column) => column.nullable === nullable && pattern.test(snakeCase(column.name)));
  const find = (patterns: RegExp[]) => {
    for (const nullable of [false, true])
      for (const pattern of patterns) {
        const found = named(pattern, nullable);
        if (found) return found;
      }
    return undefined;
  };
  const one = (column: ColumnPlan | undefined) => (column ? { label: column, title: [column] } : undefined);
  // A column named as its table says what a record is called (Sakila's city.city, country.country).
  const own = new RegExp(`^${snakeCase(singularize(table)).replace(/[^a-z0-9_]/g, '')}$`);
  const exact = find([nameLike[0] as RegExp, own]);
  if (exact) return { label: exact, title: [exact] };
  const given = find([firstNames]);
  const family = find([lastNames]);
  if (given && family) return { label: family, title: [given, family] };
  return one(find(nameLike.slice(1))) ?? one(given ?? family) ?? one(find(laterNames)) ?? {};
}
