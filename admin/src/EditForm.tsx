import { useState } from 'react';
import {
  type ErrorMap,
  isVisible,
  patchRecord,
  type RecordData,
  type RecordResult,
  type SchemaDocument,
  type WriteRefusal,
} from '../../src/client/index.js';
import { ConflictDialog } from './ConflictDialog.js';
import { useUnsavedChanges } from './navigation.js';
import { initialValue, RecordForm, type Status } from './RecordForm.js';
import { recordNoun } from './records.js';
import { unauthorizedMessage, useSession } from './session.js';
import { errorText } from './ui.js';

export function EditForm({
  schema,
  record,
  etag,
  id,
  label,
  read,
  onRecord,
  doneHref,
}: {
  schema: SchemaDocument;
  record: RecordData;
  /** The ETag of `record`, sent as If-Match: a save never silently overwrites someone else's. */
  etag: string | undefined;
  id: string;
  label: string;
  read: () => Promise<RecordResult>;
  onRecord: (result: RecordResult) => void;
  doneHref: string;
}) {
  const { form } = schema;
  const initial = Object.fromEntries(form.inputs.map((input) => [input.name, initialValue(input, record)]));
  const [edits, setEdits] = useState<RecordData>({});
  const [errors, setErrors] = useState<ErrorMap>({});
  const [status, setStatus] = useState<Status>();
  /** The record as stored now, after a save was refused because it changed (412). */
  const [conflict, setConflict] = useState<RecordResult>();
  const { options, report } = useSession();

  // visibleWhen reads the record as edited: the same rule the server applies to the PATCH.
  const values = { ...record, ...initial, ...edits };
  const visible = form.inputs.filter((input) => isVisible(input.visibleWhen, values));
  const changed = visible
    .filter((input) => input.name in edits && edits[input.name] !== initial[input.name])
    .filter((input) => input.type !== 'password' || edits[input.name] !== '');
  const changes = Object.fromEntries(changed.map((input) => [input.name, edits[input.name]]));
  const dirty = changed.length > 0;
  useUnsavedChanges(dirty, label);

  const set = (name: string, value: unknown) => {
    setEdits((all) => ({ ...all, [name]: value }));
    setStatus(undefined);
  };

  const refused = async (result: WriteRefusal) => {
    if (result.status !== 412) {
      setErrors(result.errors);
      setStatus({ kind: 'error', message: result.message });
      return;
    }
    setStatus(undefined);
    setConflict(await read());
  };

  const submit = async (ifMatch: string | undefined) => {
    setStatus({ kind: 'saving' });
    try {
      const result = await patchRecord(form.endpoint, id, changes, {
        ...options,
        ...(ifMatch ? { ifMatch } : {}),
      });
      if (!result.ok) return await refused(result);
      setErrors({});
      setEdits({});
      onRecord(result);
      setStatus({ kind: 'saved' });
    } catch (error) {
      report(error);
      setStatus({ kind: 'error', message: unauthorizedMessage(error) ?? errorText(error) });
    }
  };

  const reload = () => {
    if (!conflict) return;
    setConflict(undefined);
    setEdits({});
    setErrors({});
    onRecord(conflict);
    setStatus({ kind: 'reloaded' });
  };

  const overwrite = () => {
    if (!conflict) return;
    setConflict(undefined);
    // The ETag just read: if the record changes yet again before this lands, the dialog comes back.
    void submit(conflict.etag ?? '*');
  };

  return (
    <RecordForm
      schema={schema}
      title={<>Edit {label}</>}
      testId="edit-form"
      values={values}
      errors={errors}
      status={status}
      onChange={set}
      onSubmit={() => void submit(etag)}
      actions={
        <>
          <button type="submit" className="primary" disabled={!dirty || status?.kind === 'saving'}>
            {status?.kind === 'saving' ? 'Saving…' : 'Save'}
          </button>{' '}
          <a href={doneHref} className="button">
            Done
          </a>
        </>
      }
      dialog={
        conflict && (
          <ConflictDialog
            noun={recordNoun(schema)}
            label={label}
            visible={visible}
            changed={changed}
            initial={initial}
            edits={edits}
            stored={conflict.record}
            onReload={reload}
            onOverwrite={overwrite}
            onCancel={() => setConflict(undefined)}
          />
        )
      }
    />
  );
}
