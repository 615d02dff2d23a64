import {
  labelFor,
  type RecordData,
  type ResourceEntry,
  type SchemaDocument,
} from '../../src/client/index.js';
import { Cell, colorMapFor } from './format.js';
import { can, deletedAt, includedRelations, recordName, relatedRecord, singular } from './records.js';

export function RecordDetail({
  schema,
  index,
  record,
  id,
  children,
}: {
  schema: SchemaDocument;
  index: readonly ResourceEntry[];
  record: RecordData;
  id: string;
  children: React.ReactNode;
}) {
  const deleted = deletedAt(schema, record);
  const fieldKeys = schema.detail.fields.map((field) => field.key);
  // Included relations whose key is not a field still name the related record, after the fields.
  const extra = includedRelations(schema).filter((relation) => !fieldKeys.includes(relation.key));
  const relationOf = (key: string) => schema.detail.relations.find((relation) => relation.key === key);
  const related = (relation: NonNullable<ReturnType<typeof relationOf>>) => {
    const found = relatedRecord(relation, record, index);
    if (!found) return <span className="muted">—</span>;
    return found.href ? <a href={found.href}>{found.text}</a> : found.text;
  };
  return (
    <section aria-labelledby="detail-title" data-testid="detail">
      <h2 id="detail-title">
        {singular(schema.form.title)} {recordName(schema, record, id)}
        {deleted !== undefined && <span className="badge badge-red heading-badge">Deleted</span>}
      </h2>
      {deleted !== undefined && (
        <p className="note" role="note" data-testid="deleted-note">
          Deleted on <Cell value={deleted} type="datetime" />.{' '}
          {can(schema, 'restore') ? 'Restore it to edit it.' : 'It cannot be edited.'}
        </p>
      )}
      <dl className="detail">
        {schema.detail.fields.map((field) => {
          const relation = relationOf(field.key);
          return (
            <div key={field.key} className="detail-row" data-field={field.key}>
              <dt>{field.label}</dt>
              <dd data-testid={`detail-${field.key}`}>
                {relation ? (
                  related(relation)
                ) : (
                  <Cell
                    value={record[field.key]}
                    type={field.type}
                    colorMap={colorMapFor(schema, field.key)}
                  />
                )}
              </dd>
            </div>
          );
        })}
        {extra.map((relation) => (
          <div key={relation.name} className="detail-row" data-field={relation.name}>
            <dt>{labelFor(relation.name)}</dt>
            <dd data-testid={`detail-${relation.name}`}>{related(relation)}</dd>
          </div>
        ))}
      </dl>
      <div className="buttons record-actions">{children}</div>
    </section>
  );
}
