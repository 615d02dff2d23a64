import { type CSSProperties, useCallback, useEffect, useState } from 'react';
import {
  ApiError,
  createRecord,
  deleteRecord,
  type ErrorMap,
  fetchRecord,
  isVisible,
  patchRecord,
  type RecordData,
  type RecordResult,
  type ResourceEntry,
  restoreRecord,
  type SchemaDocument,
  type WriteRefusal,
} from '../../src/client/index.js';
import { Dialog } from './Dialog.js';
import { Cell, colorMapFor } from './format.js';
import { go, useUnsavedChanges } from './navigation.js';
import {
  can,
  canEdit,
  deletedAt,
  includedRelations,
  recordLabel,
  recordName,
  recordNoun,
  relatedRecord,
  singular,
} from './records.js';
import { hrefFor } from './routes.js';
import { unauthorizedMessage, useSession } from './session.js';
import { ErrorBox, errorText, Loading, labelFor } from './ui.js';

type Input = SchemaDocument['form']['inputs'][number];
type Loaded = RecordResult | { error: string };

/**
 * A write answers with the record alone: the related records the read included are kept while their
 * foreign keys are unchanged, so titles do not turn back into ids after a save.
 */
function keepRelations(schema: SchemaDocument, previous: RecordData, next: RecordData): RecordData {
  const kept: RecordData = {};
  for (const relation of includedRelations(schema))
    if (!(relation.name in next) && previous[relation.key] === next[relation.key])
      kept[relation.name] = previous[relation.name];
  return { ...next, ...kept };
}

/** The read-one request of a record page: its to-one relations, and soft-deleted records too. */
function useRecordReader(schema: SchemaDocument, id: string) {
  const { options } = useSession();
  return useCallback(
    (signal?: AbortSignal) =>
      fetchRecord(
        schema.form.endpoint,
        id,
        {
          include: includedRelations(schema).map((relation) => relation.name),
          // The page of a deleted record stays reachable (to restore it) wherever lists may show it.
          trashed: schema.table.softDeletes.enabled,
        },
        { ...options, ...(signal ? { signal } : {}) },
      ),
    [schema, id, options],
  );
}

function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    if (title) document.title = `${title} · Admin`;
  }, [title]);
}

export function RecordView({
  entry,
  schema,
  index,
  id,
  edit,
  backHref,
}: {
  entry: ResourceEntry;
  schema: SchemaDocument;
  index: readonly ResourceEntry[];
  id: string;
  edit: boolean;
  /** The list this record was opened from, with its filters. */
  backHref: string;
}) {
  const [loaded, setLoaded] = useState<Loaded>();
  const [notice, setNotice] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [busy, setBusy] = useState(false);
  const { options, report } = useSession();
  const read = useRecordReader(schema, id);
  const noun = recordNoun(schema);

  const failed = (error: unknown): string => {
    report(error);
    if (error instanceof ApiError && error.status === 404) return `There is no ${noun} #${id}.`;
    return unauthorizedMessage(error) ?? errorText(error);
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: `read` holds the id, schema and token; `failed` only formats
  useEffect(() => {
    const controller = new AbortController();
    read(controller.signal).then(setLoaded, (error: unknown) => {
      if (!controller.signal.aborted) setLoaded({ error: failed(error) });
    });
    return () => controller.abort();
  }, [read]);

  const record = loaded && 'record' in loaded ? loaded.record : undefined;
  const label = recordLabel(schema, record, id);
  const deleted = record ? deletedAt(schema, record) : undefined;
  const editable = canEdit(schema) && deleted === undefined;
  useDocumentTitle(
    record
      ? `${edit && editable ? `Edit ${label}` : `${singular(schema.form.title)} ${recordName(schema, record, id)}`}`
      : undefined,
  );

  const back = (
    <a href={backHref} className="back">
      ← {schema.table.title}
    </a>
  );
  if (!loaded) return <Loading />;
  if (!('record' in loaded))
    return (
      <>
        {back}
        <ErrorBox message={loaded.error} />
      </>
    );
  const { etag } = loaded;
  const loadedRecord = loaded.record;

  const remove = async () => {
    setConfirmDelete(false);
    setBusy(true);
    setNotice(undefined);
    setProblem(undefined);
    try {
      const result = await deleteRecord(schema.form.endpoint, id, {
        ...options,
        ...(etag ? { ifMatch: etag } : {}),
      });
      if (result.ok && !schema.table.softDeletes.enabled) return go(backHref, `Deleted ${label}.`);
      if (!result.ok && result.status !== 412) return setProblem(result.message);
      // A soft-deleted record stays readable here, marked, with its restore button; a record that
      // changed since it was read is shown as it is now, to be deleted (or not) knowingly.
      setLoaded(await read());
      if (result.ok) setNotice(`Deleted ${label}.${can(schema, 'restore') ? ' It can be restored.' : ''}`);
      else setProblem(`Not deleted: this ${noun} changed since you opened it. Check it, then delete again.`);
    } catch (error) {
      setProblem(failed(error));
    } finally {
      setBusy(false);
    }
  };

  const restore = async () => {
    setBusy(true);
    setNotice(undefined);
    setProblem(undefined);
    try {
      const restored = await restoreRecord(schema.form.endpoint, id, options);
      setLoaded({ ...restored, record: keepRelations(schema, loadedRecord, restored.record) });
      setNotice(`Restored ${label}.`);
    } catch (error) {
      setProblem(failed(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      {back}
      {schema.form.readOnly && (
        <p className="note" role="note" data-testid="read-only">
          Read-only: sign in with a token that may edit.
        </p>
      )}
      {notice && (
        <p className="success" role="status" data-testid="record-notice">
          {notice}
        </p>
      )}
      {problem && (
        <div className="error-box" role="alert" data-testid="record-problem">
          {problem}
        </div>
      )}
      {edit && editable ? (
        <EditForm
          schema={schema}
          record={loadedRecord}
          etag={etag}
          id={id}
          label={label}
          read={read}
          onRecord={(result) =>
            setLoaded({ ...result, record: keepRelations(schema, loadedRecord, result.record) })
          }
          doneHref={hrefFor(entry.path, id)}
        />
      ) : (
        <Detail schema={schema} index={index} record={loadedRecord} id={id}>
          {editable && (
            <a href={hrefFor(entry.path, id, true)} className="button primary">
              Edit
            </a>
          )}
          {can(schema, 'delete') && deleted === undefined && (
            <button type="button" className="danger" disabled={busy} onClick={() => setConfirmDelete(true)}>
              Delete
            </button>
          )}
          {can(schema, 'restore') && deleted !== undefined && (
            <button type="button" className="primary" disabled={busy} onClick={() => void restore()}>
              Restore
            </button>
          )}
        </Detail>
      )}
      {confirmDelete && (
        <Dialog
          title={`Delete ${label}?`}
          testId="delete-dialog"
          onCancel={() => setConfirmDelete(false)}
          actions={
            <>
              <button type="button" data-autofocus onClick={() => setConfirmDelete(false)}>
                Cancel
              </button>
              <button type="button" className="danger" onClick={() => void remove()}>
                Delete
              </button>
            </>
          }
        >
          <p>
            {schema.table.softDeletes.enabled
              ? `The ${noun} disappears from the lists; it stays under "Show deleted", where it can be restored.`
              : `The ${noun} is removed for good: this cannot be undone.`}
          </p>
        </Dialog>
      )}
    </>
  );
}

function Detail({
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

/** The record's value as the input holds it. */
function initialValue(input: Input, record: RecordData): unknown {
  const value = record[input.name];
  switch (input.type) {
    case 'password':
      return '';
    case 'checkbox':
    case 'switch':
      return value === true || value === 1 || value === '1';
    case 'number':
      return value === null || value === undefined || value === '' ? null : Number(value);
    case 'select':
      return value ?? null;
    default:
      return value === null || value === undefined ? '' : String(value);
  }
}

/** An input's value before anything is typed in a new record. */
function emptyValue(input: Input): unknown {
  switch (input.type) {
    case 'checkbox':
    case 'switch':
      return false;
    case 'number':
    case 'select':
    case 'date':
      return null;
    default:
      return '';
  }
}

/** How a value reads in the conflict dialog: an option's label, Yes/No, never a password. */
function shown(input: Input, value: unknown): string {
  if (input.type === 'password') return value ? '(a new password)' : '—';
  if (value === null || value === undefined || value === '') return '—';
  if (input.type === 'checkbox' || input.type === 'switch') return value ? 'Yes' : 'No';
  const option = input.options?.find((candidate) => candidate.value === value);
  return option ? option.label : String(value);
}

/**
 * The rows of the conflict dialog: the fields I changed, then those the other save changed (their value
 * now differs from the one this form opened with), so both sides of the choice are visible.
 */
function conflictRows(
  visible: readonly Input[],
  changed: readonly Input[],
  initial: RecordData,
  stored: RecordData,
): Input[] {
  const theirs = visible.filter(
    (input) =>
      !changed.includes(input) &&
      input.type !== 'password' &&
      initialValue(input, stored) !== initial[input.name],
  );
  return [...changed, ...theirs];
}

type Status =
  | { kind: 'saving' }
  | { kind: 'saved' }
  | { kind: 'reloaded' }
  | { kind: 'error'; message: string }
  | undefined;

/** The inputs of a form, the messages of its refusal, and its footer: shared by edit and create. */
function FormBody({
  schema,
  values,
  errors,
  status,
  onChange,
  children,
}: {
  schema: SchemaDocument;
  values: RecordData;
  errors: ErrorMap;
  status: Status;
  onChange: (name: string, value: unknown) => void;
  children: React.ReactNode;
}) {
  const { form } = schema;
  const visible = form.inputs.filter((input) => isVisible(input.visibleWhen, values));
  const known = new Set(form.inputs.map((input) => input.name));
  const otherErrors = Object.entries(errors).filter(([key]) => !known.has(key));
  return (
    <>
      {visible.map((input) => (
        <Field
          key={input.name}
          input={input}
          value={values[input.name]}
          errors={errors[input.name]}
          onChange={(value) => onChange(input.name, value)}
        />
      ))}
      <div className="form-footer">
        {status?.kind === 'saved' && (
          <p className="success" role="status" data-testid="form-success">
            Saved.
          </p>
        )}
        {status?.kind === 'reloaded' && (
          <p className="success" role="status" data-testid="form-success">
            Reloaded: the form shows the stored values.
          </p>
        )}
        {status?.kind === 'error' && (
          <div className="error-box" role="alert" data-testid="form-error">
            {status.message}
            {otherErrors.map(([key, messages]) => (
              <div key={key}>
                {key}: {messages.join(' ')}
              </div>
            ))}
          </div>
        )}
        {children}
      </div>
    </>
  );
}

function EditForm({
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
    <section aria-labelledby="form-title">
      <h2 id="form-title">Edit {label}</h2>
      <form
        id={form.id}
        className="grid-form"
        data-testid="edit-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit(etag);
        }}
      >
        <FormBody schema={schema} values={values} errors={errors} status={status} onChange={set}>
          <button type="submit" className="primary" disabled={!dirty || status?.kind === 'saving'}>
            {status?.kind === 'saving' ? 'Saving…' : 'Save'}
          </button>{' '}
          <a href={doneHref} className="button">
            Done
          </a>
        </FormBody>
      </form>
      {conflict && (
        <Dialog
          title={`This ${recordNoun(schema)} changed since you opened it`}
          testId="conflict-dialog"
          onCancel={() => setConflict(undefined)}
          actions={
            <>
              <button type="button" onClick={reload}>
                Reload (discard my changes)
              </button>
              <button type="button" className="danger" onClick={overwrite}>
                Overwrite (save mine anyway)
              </button>
            </>
          }
        >
          <p>Someone saved {label} after you opened it. Your changes are not saved yet.</p>
          <table className="conflict">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Your change</th>
                <th scope="col">Stored now</th>
              </tr>
            </thead>
            <tbody>
              {conflictRows(visible, changed, initial, conflict.record).map((input) => {
                const mine = changed.includes(input);
                return (
                  <tr key={input.name} data-field={input.name}>
                    <th scope="row">{input.label}</th>
                    <td className={mine ? undefined : 'muted'}>
                      {mine
                        ? shown(input, edits[input.name])
                        : `${shown(input, initial[input.name])} (unchanged)`}
                    </td>
                    <td>{shown(input, initialValue(input, conflict.record))}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Dialog>
      )}
    </section>
  );
}

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
      <section aria-labelledby="form-title">
        <h2 id="form-title">New {noun}</h2>
        <form
          id={form.id}
          className="grid-form"
          data-testid="create-form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <FormBody
            schema={schema}
            values={values}
            errors={errors}
            status={status}
            onChange={(name, value) => {
              setValues((all) => ({ ...all, [name]: value }));
              setStatus(undefined);
            }}
          >
            <button type="submit" className="primary" disabled={status?.kind === 'saving'}>
              {status?.kind === 'saving' ? 'Creating…' : `Create ${noun}`}
            </button>{' '}
            <a href={backHref} className="button">
              Cancel
            </a>
          </FormBody>
        </form>
      </section>
    </>
  );
}

function Field({
  input,
  value,
  errors,
  onChange,
}: {
  input: Input;
  value: unknown;
  errors: string[] | undefined;
  onChange: (value: unknown) => void;
}) {
  const id = `input-${input.name}`;
  const errorId = `${id}-error`;
  const common = {
    id,
    name: input.name,
    'aria-invalid': errors ? true : undefined,
    'aria-describedby': errors ? errorId : undefined,
    required: input.required,
  } as const;
  const style = { '--cols': input.cols, '--md': input.md } as CSSProperties;
  const text = value === null || value === undefined ? '' : String(value);

  let control: React.ReactNode;
  switch (input.type) {
    case 'textarea':
      control = (
        <textarea
          {...common}
          rows={5}
          value={text}
          maxLength={input.maxLength}
          onChange={(e) => onChange(e.target.value)}
        />
      );
      break;
    case 'select': {
      const options = input.options ?? [];
      control = (
        <select
          {...common}
          value={String(options.findIndex((option) => option.value === value))}
          onChange={(e) => onChange(options[Number(e.target.value)]?.value ?? null)}
        >
          {options.every((option) => option.value !== value) && <option value="-1">—</option>}
          {options.map((option, index) => (
            <option key={String(option.value)} value={String(index)}>
              {option.label}
            </option>
          ))}
        </select>
      );
      break;
    }
    case 'checkbox':
    case 'switch':
      control = (
        <input
          {...common}
          type="checkbox"
          role={input.type === 'switch' ? 'switch' : undefined}
          className={input.type === 'switch' ? 'switch' : undefined}
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
        />
      );
      break;
    case 'number':
      control = (
        <input
          {...common}
          type="number"
          step="any"
          value={text}
          onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}
        />
      );
      break;
    case 'date':
      control = (
        <input
          {...common}
          type="date"
          value={text}
          onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}
        />
      );
      break;
    default:
      control = (
        <input
          {...common}
          type={input.type}
          value={text}
          minLength={input.minLength}
          maxLength={input.maxLength}
          autoComplete={input.type === 'password' ? 'new-password' : undefined}
          onChange={(e) => onChange(e.target.value)}
        />
      );
  }
  const inline = input.type === 'checkbox' || input.type === 'switch';
  return (
    <div
      className={`field${inline ? ' field-inline' : ''}`}
      style={style}
      data-testid={`field-${input.name}`}
    >
      <label htmlFor={id}>
        {input.label}
        {input.required && <span aria-hidden="true"> *</span>}
      </label>
      {control}
      {errors && (
        <p className="field-error" id={errorId} data-testid={`error-${input.name}`}>
          {errors.join(' ')}
        </p>
      )}
    </div>
  );
}
