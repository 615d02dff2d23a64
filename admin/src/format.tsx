import type { SchemaDocument, TableColumnType } from '../../src/client/index.js';

/** One value, shown the way its column type says. */
export function Cell({
  value,
  type,
  colorMap,
}: {
  value: unknown;
  type: TableColumnType;
  colorMap?: Record<string, string> | undefined;
}) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  switch (type) {
    case 'badge': {
      const text = String(value);
      const color = colorMap?.[text] ?? 'gray';
      return <span className={`badge badge-${color}`}>{text}</span>;
    }
    case 'boolean':
      return <>{value ? 'Yes' : 'No'}</>;
    case 'json':
      return <code>{JSON.stringify(value)}</code>;
    case 'datetime':
      return (
        <time dateTime={String(value)}>
          {String(value)
            .replace('T', ' ')
            .replace(/\.\d+Z$|Z$/, '')}
        </time>
      );
    default:
      return <>{typeof value === 'object' ? JSON.stringify(value) : String(value)}</>;
  }
}

/** The badge colors a detail field borrows from the table column of the same key. */
export function colorMapFor(schema: SchemaDocument, key: string): Record<string, string> | undefined {
  return schema.table.columns.find((column) => column.key === key)?.formatOptions.colorMap;
}
