import { type CSSProperties, useEffect, useState } from 'react';
import {
  type ErrorMap,
  type FilterLeaf,
  fetchList,
  isVisible,
  patchRecord,
  type RecordData,
  type ResourceEntry,
  type SchemaDocument,
} from '../../src/client/index.js';
import { Cell, colorMapFor } from './format.js';
import { unauthorizedMessage, useSession } from './session.js';
import { ErrorBox, errorText, hrefFor, Loading, shownRecords } from './ui.js';

type Input = SchemaDocument['form']['inputs'][number];

/**
 * One record, read through the list endpoint: `filter[id]=<id>`, plus an empty value for every other
 * filter name (an empty value is no filter, but it lifts a default filter such as `status=published`),
 * and `trashed` when the resource soft-deletes, so every record the list can show is found.
 */
function recordFilter(schema: SchemaDocument, id: string): FilterLeaf[] {
  const leaves: FilterLeaf[] = [{ name: 'id', value: id }];
  for (const filter of schema.table.filters) {
    if (filter.name === 'id' || filter.name === 'trashed' || filter.name.endsWith('.*')) continue;
    leaves.push({ name: filter.name, value: '' });
  }
  if (schema.table.softDeletes.enabled) leaves.push({ name: 'trashed', value: true });
  return leaves;
}

type Loaded = { record: RecordData } | { error: string } | { missing: true };

export function RecordView({
  entry,
  schema,
  id,
  edit,
}: {
  entry: ResourceEntry;
  schema: SchemaDocument;
  id: string;
  edit: boolean;
}) {
  const [loaded, setLoaded] = useState<Loaded>();
  const { options, report } = useSession();

  useEffect(() => {
    if (!schema.table.filters.some((filter) => filter.name === 'id')) {
      // No filter[id] on this endpoint: show the record as the list showed it.
      const shown = shownRecords.get(`${entry.path}/${id}`);
      setLoaded(
        shown
          ? { record: shown }
          : { error: `This list cannot be filtered by id: open record ${id} from the list.` },
      );
      return;
    }
    const controller = new AbortController();
    fetchList(
      entry.list,
      { filter: recordFilter(schema, id), per_page: 1 },
      { ...options, signal: controller.signal },
    ).then(
      (response) => {
        const record = (Array.isArray(response) ? response : response.data)[0];
        setLoaded(record ? { record } : { missing: true });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        report(error);
        setLoaded({ error: unauthorizedMessage(error) ?? errorText(error) });
      },
    );
    return () => controller.abort();
  }, [entry, schema, id, options, report]);

  const back = (
    <a href={hrefFor(entry.path)} className="back">
      ← {schema.table.title}
    </a>
  );
  if (!loaded) return <Loading />;
  if ('error' in loaded)
    return (
      <>
        {back}
        <ErrorBox message={loaded.error} />
      </>
    );
  if ('missing' in loaded)
    return (
      <>
        {back}
        <ErrorBox message={`No record with id ${id}.`} />
      </>
    );
  // A context that may not update gets no inputs: even at an /edit address (a bookmark, a token
  // signed out) there is only the record to show.
  const editable = !schema.form.readOnly && schema.form.inputs.length > 0;
  return (
    <>
      {back}
      {schema.form.readOnly && (
        <p className="note" role="note" data-testid="read-only">
          Read-only: sign in with a token that may edit.
        </p>
      )}
      {edit && editable ? (
        <EditForm
          schema={schema}
          record={loaded.record}
          id={id}
          onSaved={(record) => {
            shownRecords.set(`${entry.path}/${id}`, record);
            setLoaded({ record });
          }}
          cancelHref={hrefFor(entry.path, id)}
        />
      ) : (
        <Detail schema={schema} record={loaded.record} editHref={hrefFor(entry.path, id, true)} />
      )}
    </>
  );
}

function Detail({
  schema,
  record,
  editHref,
}: {
  schema: SchemaDocument;
  record: RecordData;
  editHref: string;
}) {
  return (
    <section aria-labelledby="detail-title" data-testid="detail">
      <h2 id="detail-title">
        {schema.form.title} #{String(record.id)}
      </h2>
      <dl className="detail">
        {schema.detail.fields.map((field) => (
          <div key={field.key} className="detail-row" data-field={field.key}>
            <dt>{field.label}</dt>
            <dd data-testid={`detail-${field.key}`}>
              <Cell value={record[field.key]} type={field.type} colorMap={colorMapFor(schema, field.key)} />
            </dd>
          </div>
        ))}
      </dl>
      {schema.form.inputs.length > 0 && (
        <a href={editHref} className="button primary">
          Edit
        </a>
      )}
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

function EditForm({
  schema,
  record,
  id,
  onSaved,
  cancelHref,
}: {
  schema: SchemaDocument;
  record: RecordData;
  id: string;
  onSaved: (record: RecordData) => void;
  cancelHref: string;
}) {
  const { form } = schema;
  const initial = Object.fromEntries(form.inputs.map((input) => [input.name, initialValue(input, record)]));
  const [edits, setEdits] = useState<RecordData>({});
  const [errors, setErrors] = useState<ErrorMap>({});
  const [status, setStatus] = useState<
    { kind: 'saving' } | { kind: 'saved' } | { kind: 'error'; message: string }
  >();
  const { options, report } = useSession();

  // visibleWhen reads the record as edited: the same rule the server applies to the PATCH.
  const values = { ...record, ...initial, ...edits };
  const visible = form.inputs.filter((input) => isVisible(input.visibleWhen, values));
  const changes = Object.fromEntries(
    visible
      .filter((input) => input.name in edits && edits[input.name] !== initial[input.name])
      .filter((input) => input.type !== 'password' || edits[input.name] !== '')
      .map((input) => [input.name, edits[input.name]]),
  );
  const changed = Object.keys(changes).length > 0;

  const set = (name: string, value: unknown) => {
    setEdits((all) => ({ ...all, [name]: value }));
    setStatus(undefined);
  };

  const submit = async () => {
    setStatus({ kind: 'saving' });
    try {
      const result = await patchRecord(form.endpoint, id, changes, options);
      if (result.ok) {
        setErrors({});
        setEdits({});
        onSaved(result.record);
        setStatus({ kind: 'saved' });
      } else {
        setErrors(result.errors);
        setStatus({ kind: 'error', message: result.message });
      }
    } catch (error) {
      report(error);
      setStatus({ kind: 'error', message: unauthorizedMessage(error) ?? errorText(error) });
    }
  };

  const known = new Set(form.inputs.map((input) => input.name));
  const otherErrors = Object.entries(errors).filter(([key]) => !known.has(key));

  return (
    <section aria-labelledby="form-title">
      <h2 id="form-title">
        Edit {form.title} #{id}
      </h2>
      <form
        id={form.id}
        className="grid-form"
        data-testid="edit-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        {visible.map((input) => (
          <Field
            key={input.name}
            input={input}
            value={input.name in edits ? edits[input.name] : initial[input.name]}
            errors={errors[input.name]}
            onChange={(value) => set(input.name, value)}
          />
        ))}
        <div className="form-footer">
          {status?.kind === 'saved' && (
            <p className="success" role="status" data-testid="form-success">
              Saved.
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
          <button type="submit" className="primary" disabled={!changed || status?.kind === 'saving'}>
            {status?.kind === 'saving' ? 'Saving…' : 'Save'}
          </button>{' '}
          <a href={cancelHref} className="button">
            Done
          </a>
        </div>
      </form>
    </section>
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
