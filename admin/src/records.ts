import type {
  Action,
  DetailRelation,
  RecordData,
  ResourceEntry,
  SchemaDocument,
} from '../../src/client/index.js';
import { hrefFor } from './routes.js';

const irregular: Record<string, string> = {
  people: 'person',
  men: 'man',
  women: 'woman',
  children: 'child',
  mice: 'mouse',
  geese: 'goose',
  feet: 'foot',
  teeth: 'tooth',
  movies: 'movie',
  cookies: 'cookie',
};
const unchanged = /(ss|us|is|series|species|news|data|media|info|staff)$/i;

/**
 * One English word in the singular: enough for resource titles ("Users", "Categories", "Statuses",
 * "Addresses", "People"), keeping the word's own case. A title already singular stays as it is.
 */
function singularWord(word: string): string {
  const lower = word.toLowerCase();
  const known = irregular[lower];
  if (known) return word.slice(0, 1) + known.slice(1);
  if (unchanged.test(lower)) return word;
  if (/[^aeiou]ies$/.test(lower)) return `${word.slice(0, -3)}${word.slice(-3) === 'IES' ? 'Y' : 'y'}`;
  if (/(ss|sh|ch|x|z|[^aeiou]us)es$/.test(lower)) return word.slice(0, -2);
  if (lower.endsWith('s')) return word.slice(0, -1);
  return word;
}

/** "Blog posts" → "Blog post": the last word carries the number. */
export function singular(title: string): string {
  const match = /^(.*?)([A-Za-z]+)(\W*)$/.exec(title);
  if (!match) return title;
  const [, head = '', word = '', tail = ''] = match;
  return `${head}${singularWord(word)}${tail}`;
}

/** For the middle of a sentence ("Edit user"), unless it starts with an acronym ("API key"). */
export function lowerFirst(text: string): string {
  return /^[A-Z]{2}/.test(text) ? text : text.charAt(0).toLowerCase() + text.slice(1);
}

/** "user": what one record of this schema is called. */
export function recordNoun(schema: SchemaDocument): string {
  return lowerFirst(singular(schema.form.title));
}

/** A record's title from its title columns' values, joined by a space; undefined when they are all empty. */
export function titleOf(columns: readonly string[], record: RecordData | undefined): string | undefined {
  if (!record) return undefined;
  const words = columns
    .map((column) => record[column])
    .filter((value) => (typeof value === 'string' && value.trim() !== '') || typeof value === 'number')
    .map(String);
  return words.length > 0 ? words.join(' ') : undefined;
}

/** `"Ana López"` from the record-title columns, else its key: `412` (read as "invoice 412"). */
export function recordName(schema: SchemaDocument, record: RecordData | undefined, id: string): string {
  const title = titleOf(schema.detail.titleColumns, record);
  return title === undefined ? id : `"${title}"`;
}

/** `user "Ana López"`: the record as a sentence names it. */
export function recordLabel(schema: SchemaDocument, record: RecordData | undefined, id: string): string {
  return `${recordNoun(schema)} ${recordName(schema, record, id)}`;
}

/**
 * When a soft-deleted record was deleted. The schema says only that the resource soft-deletes; the
 * column is Laravel's `deleted_at` unless the document names another.
 */
export function deletedAt(schema: SchemaDocument, record: RecordData): unknown {
  if (!schema.table.softDeletes.enabled) return undefined;
  const { column } = schema.table.softDeletes as { column?: string };
  const value = record[column ?? 'deleted_at'];
  return value === null || value === '' ? undefined : value;
}

/** The to-one relations this endpoint may include, of the keys shown (or of all, for a record). */
export function includedRelations(schema: SchemaDocument, keys?: readonly string[]): DetailRelation[] {
  return schema.detail.relations.filter(
    (relation) => relation.included && (keys === undefined || keys.includes(relation.key)),
  );
}

/**
 * A write answers with the record alone: the related records the read included are kept while their
 * foreign keys are unchanged, so titles do not turn back into ids after a save.
 */
export function keepRelations(schema: SchemaDocument, previous: RecordData, next: RecordData): RecordData {
  const kept: RecordData = {};
  for (const relation of includedRelations(schema))
    if (!(relation.name in next) && previous[relation.key] === next[relation.key])
      kept[relation.name] = previous[relation.name];
  return { ...next, ...kept };
}

export function can(schema: SchemaDocument, action: Action): boolean {
  return schema.table.actions.includes(action);
}

/** Update needs the action and a form with inputs (a read-only context gets none). */
export function canEdit(schema: SchemaDocument): boolean {
  return can(schema, 'update') && !schema.form.readOnly && schema.form.inputs.length > 0;
}

export function canCreate(schema: SchemaDocument): boolean {
  return can(schema, 'create') && schema.form.inputs.length > 0;
}

/** A related record as its title, and the address of its page when its resource has one here. */
export function relatedRecord(
  relation: DetailRelation,
  record: RecordData,
  index: readonly ResourceEntry[],
): { text: string; href: string | undefined } | undefined {
  const id = record[relation.key];
  if (id === null || id === undefined) return undefined;
  const related = record[relation.name];
  const title =
    typeof related === 'object' && related !== null
      ? titleOf(relation.titleColumns, related as RecordData)
      : undefined;
  const entry = relation.schema ? index.find((candidate) => candidate.schema === relation.schema) : undefined;
  // Without a title, the related resource's name and the key: "Album 3".
  const fallback = entry ? `${singular(entry.title)} ${String(id)}` : `#${String(id)}`;
  return { text: title ?? fallback, href: entry ? hrefFor(entry.path, String(id)) : undefined };
}
