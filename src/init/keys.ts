import type { TableModel } from './model.js';

/**
 * A relation names one key column (`belongsTo(resource, foreignKey)`), so only single-column keys make
 * relations; a composite key is reported in the resource's comment instead.
 */

/** One foreign key of one column, resolved to the referenced column. */
export interface Link {
  table: string;
  column: string;
  target: string;
  targetColumn: string;
}

/**
 * Single-column foreign keys between application tables, resolved to their target column; the
 * others, by table, as notes for the resource's comment.
 */
export function resolveLinks(tables: TableModel[]): { links: Link[]; compositeNotes: Map<string, string[]> } {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const primaryKeyOf = (table: string) => {
    const key = byName.get(table)?.primaryKey;
    return key?.length === 1 ? key[0] : undefined;
  };
  const links: Link[] = [];
  const compositeNotes = new Map<string, string[]>();
  for (const table of tables)
    for (const key of table.foreignKeys) {
      if (!byName.has(key.referencedTable)) continue;
      const [column] = key.columns;
      const targetColumn = key.referencedColumns[0] ?? primaryKeyOf(key.referencedTable);
      if (key.columns.length !== 1 || column === undefined || targetColumn === undefined) {
        const notes = compositeNotes.get(table.name) ?? [];
        notes.push(
          `Foreign key (${key.columns.join(', ')}) → ${key.referencedTable}: composite, no relation made.`,
        );
        compositeNotes.set(table.name, notes);
        continue;
      }
      links.push({ table: table.name, column, target: key.referencedTable, targetColumn });
    }
  return { links, compositeNotes };
}

/** Unique indexes that hold for every row (a partial one covers only some). */
function uniqueIndexes(table: TableModel) {
  return table.indexes.filter((index) => index.unique && !index.partial);
}

/** Columns unique on their own, for the column comments. */
export function uniqueColumns(table: TableModel): Set<string> {
  return new Set(
    uniqueIndexes(table)
      .filter((index) => index.columns.length === 1)
      .map((index) => index.columns[0] as string),
  );
}

/** Unique constraints over several columns, for the resource's comment. */
export function compositeUniqueNotes(table: TableModel): string[] {
  const notes: string[] = [];
  for (const index of uniqueIndexes(table))
    if (index.columns.length > 1 && index.columns.every((column) => column !== null))
      notes.push(`Unique: (${index.columns.join(', ')}) (${index.name}).`);
  return notes;
}

/** At most one row of `table` per value of `column`: a key to it is a hasOne, not a hasMany. */
export function isUniqueColumn(table: TableModel, column: string): boolean {
  if (table.primaryKey.length === 1 && table.primaryKey[0] === column) return true;
  return uniqueIndexes(table).some((index) => index.columns.length === 1 && index.columns[0] === column);
}
