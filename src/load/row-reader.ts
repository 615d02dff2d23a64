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
const subsetReaders = new WeakMap<ResolvedResource, BoundedMap<string, RowReader>>();

/** The reader of these columns of a resource (a subset a request's fields chose), made once. */
export function subsetReader(resource: ResolvedResource, only: readonly string[]): RowReader {
  let readers = subsetReaders.get(resource);
  if (!readers) {
    readers = new BoundedMap(MAX_SUBSET_READERS);
    subsetReaders.set(resource, readers);
  }
  const key = only.join(',');
  let reader = readers.get(key);
  if (!reader) {
    reader = rowReader(resource, only);
    readers.set(key, reader);
  }
  return reader;
}
