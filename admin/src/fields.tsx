import type { ReactElement } from 'react';
import {
  BooleanField,
  ChipField,
  DateField,
  FunctionField,
  NumberField,
  ReferenceField,
  TextField,
} from 'react-admin';
import type { DetailRelation, RecordData, SchemaDocument } from '../../src/client/index.js';
import { type Catalog, pathOfResource } from './catalog.js';

type ColumnType = SchemaDocument['table']['columns'][number]['type'];

const jsonText = (value: unknown): string =>
  value === null || value === undefined ? '' : JSON.stringify(value);

/** How one value of a column type is shown, in a table cell or on a record's page. */
export function valueField(source: string, type: ColumnType, label?: string): ReactElement {
  switch (type) {
    case 'number':
      return <NumberField source={source} label={label} />;
    case 'badge':
      return <ChipField source={source} label={label} size="small" emptyText="" />;
    case 'date':
      return <DateField source={source} label={label} />;
    case 'datetime':
      return <DateField source={source} label={label} showTime />;
    case 'boolean':
      return <BooleanField source={source} label={label} />;
    case 'json':
      return (
        <FunctionField
          source={source}
          label={label}
          render={(record: RecordData) => (
            <code style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
              {jsonText(record[source])}
            </code>
          )}
        />
      );
    default:
      return <TextField source={source} label={label} />;
  }
}

/** The to-one relation whose foreign key a column is, if any. */
export const relationOfKey = (schema: SchemaDocument, key: string): DetailRelation | undefined =>
  schema.detail.relations.find((relation) => relation.key === key);

/**
 * A foreign key: the related record's title, linking to its page, where the related resource has a
 * schema document here; else the key as it is.
 */
export function keyField(
  catalog: Catalog,
  relation: DetailRelation,
  type: ColumnType,
  label?: string,
): ReactElement {
  const path = pathOfResource(catalog, relation.resource, relation.schema);
  if (!path) return valueField(relation.key, type, label);
  return <ReferenceField source={relation.key} reference={path} label={label} link="show" emptyText="" />;
}

/** A column's field: its reference when it is a foreign key, else its value. */
export function columnField(
  catalog: Catalog,
  schema: SchemaDocument,
  key: string,
  type: ColumnType,
  label?: string,
) {
  const relation = relationOfKey(schema, key);
  return relation ? keyField(catalog, relation, type, label) : valueField(key, type, label);
}
