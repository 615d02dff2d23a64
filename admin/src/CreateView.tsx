import { useState } from 'react';
import {
  createRecord,
  type ErrorMap,
  isVisible,
  type RecordData,
  type ResourceEntry,
  type SchemaDocument,
} from '../../src/client/index.js';
import { go, useUnsavedChanges } from './navigation.js';
import { emptyValue, RecordForm, type Status } from './RecordForm.js';
import { can, recordLabel, recordNoun } from './records.js';
import { hrefFor } from './routes.js';
import { unauthorizedMessage, useSession } from './session.js';
import { ErrorBox, errorText, useDocumentTitle } from './ui.js';

export function CreateView({
  entry,
  schema,
  backHref,
}: {
  entry: ResourceEntry;
  schema: SchemaDocument;
  backHref: string;
}) {
  const { form } = schema;
  const [values, setValues] = useState<RecordData>(() =>
    Object.fromEntries(form.inputs.map((input) => [input.name, emptyValue(input)])),
  );
  const [errors, setErrors] = useState<ErrorMap>({});
  const [status, setStatus] = useState<Status>();
  const { options, report } = useSession();
  const noun = recordNoun(schema);
  useDocumentTitle(`New ${noun}`);

  const visible = form.inputs.filter((input) => isVisible(input.visibleWhen, values));
  // What was left empty is not sent: the column's default applies, and a required input is named.
  const body = Object.fromEntries(
    visible
      .filter((input) => values[input.name] !== '' && values[input.name] !== null)
      .map((input) => [input.name, values[input.name]]),
  );
  const dirty = visible.some((input) => values[input.name] !== emptyValue(input));
  useUnsavedChanges(dirty, `the new ${noun}`);

  const submit = async () => {
    setStatus({ kind: 'saving' });
    try {
      const result = await createRecord(form.endpoint, body, options);
      if (!result.ok) {
        setErrors(result.errors);
        setStatus({ kind: 'error', message: result.message });
        return;
      }
      const id = result.record.id ?? result.location?.split('/').pop();
      const label = recordLabel(schema, result.record, String(id));
      if (id === undefined || id === null) return go(backHref, `Created ${label}.`);
      go(hrefFor(entry.path, String(id)), `Created ${label}.`);
    } catch (error) {
      report(error);
      setStatus({ kind: 'error', message: unauthorizedMessage(error) ?? errorText(error) });
    }
  };

  if (!can(schema, 'create') || form.readOnly)
    return (
      <>
        <a href={backHref} className="back">
          ← {schema.table.title}
        </a>
        <ErrorBox message="Creating records here needs a token that may create them." />
      </>
    );
  return (
    <>
      <a href={backHref} className="back">
        ← {schema.table.title}
      </a>
      <RecordForm
        schema={schema}
        title={<>New {noun}</>}
        testId="create-form"
        values={values}
        errors={errors}
        status={status}
        onChange={(name, value) => {
          setValues((all) => ({ ...all, [name]: value }));
          setStatus(undefined);
        }}
        onSubmit={() => void submit()}
        actions={
          <>
            <button type="submit" className="primary" disabled={status?.kind === 'saving'}>
              {status?.kind === 'saving' ? 'Creating…' : `Create ${noun}`}
            </button>{' '}
            <a href={backHref} className="button">
              Cancel
            </a>
          </>
        }
      />
    </>
  );
}
