import { kinds } from '../kinds/index.js';
import type { ResourceRecord } from '../resource/policy.js';
import type { ResolvedResource } from '../resource/registry.js';
import { objectMaker } from '../sql/object-maker.js';
import { textBooleanReader, unixReader } from '../sql/storage.js';

/** The reader of one column: by its kind, and for datetimes and booleans by how they are stored. */
const readerOf = (
  column: ResolvedResource['visibleColumns'][number],
): ((value: unknown) => unknown) | undefined =>
  (column.type === 'datetime' ? unixReader(column.storage) : undefined) ??
  (column.type === 'boolean' ? textBooleanReader(column.storage) : undefined) ??
  kinds[column.type].read;

/** Builds, once per resource, the function that turns a database row into a record (see `objectMaker`). */
export function rowReader(resource: ResolvedResource): (row: Record<string, unknown>) => ResourceRecord {
  // A kind without a reader (text) is answered as the driver gives it.
  return objectMaker(
    resource.visibleColumns.map((column) => {
      const read = readerOf(column);
      return { key: column.name, from: column.name, ...(read && { read }) };
    }),
  );
}
