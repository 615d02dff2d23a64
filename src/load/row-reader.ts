import { kinds } from '../kinds/index.js';
import { BoundedMap } from '../plan/bounded-map.js';
import type { ResourceRecord } from '../resource/policy.js';
import type { ResolvedResource } from '../resource/registry.js';
import { objectMaker } from '../sql/object-maker.js';
import { visibleColumnsOf } from '../sql/selection.js';
import { textBooleanReader, unixReader } from '../sql/storage.js';

/** The reader of one column: by its kind, and for datetimes and booleans by how they are stored. */
export const readerOf = (
  column: ResolvedResource['visibleColumns'][number],
): ((value: unknown) => unknown) | undefined =>
  (column.type === 'datetime' ? unixReader(column.storage) : undefined) ??
  (column.type === 'boolean' ? textBooleanReader(column.storage) : undefined) ??
  kinds[column.type].read;

type RowReader = (row: Record<string, unknown>) => ResourceRecord;

/**
 * Builds, once per resource, the function that turns a database row into a record (see
 * `objectMaker`): every visible column, or only those of `only` (sparse fieldsets), in their order.
 */
export function rowReader(resource: ResolvedResource, only?: readonly string[]): RowReader {
  // A kind without a reader (text) is answered as the driver gives it.
  return objectMaker(
    visibleColumnsOf(resource, only && new Set(only)).map((column) => {
      const read = readerOf(column);
      return { key: column.name, from: column.name, ...(read && { read }) };
    }),
  );
}

/** Readers of column subsets kept per resource: generated code, too costly to make per request. */
const MAX_SUBSET_READERS = 100;
/**
 * A resource's subset readers: by the names joined, and by the list itself — a cached plan hands the
 * same list to every request, which then finds its reader without joining the names into a key.
 */
const subsetReaders = new WeakMap<
  ResolvedResource,
  { byNames: BoundedMap<string, RowReader>; byList: WeakMap<readonly string[], RowReader> }
>();

/** The reader of these columns of a resource (a subset a request's fields chose), made once. */
export function subsetReader(resource: ResolvedResource, only: readonly string[]): RowReader {
  let readers = subsetReaders.get(resource);
  if (!readers) {
    readers = { byNames: new BoundedMap(MAX_SUBSET_READERS), byList: new WeakMap() };
    subsetReaders.set(resource, readers);
  }
  const known = readers.byList.get(only);
  if (known) return known;
  const key = only.join(',');
  let reader = readers.byNames.get(key);
  if (!reader) {
    reader = rowReader(resource, only);
    readers.byNames.set(key, reader);
  }
  readers.byList.set(only, reader);
  return reader;
}
