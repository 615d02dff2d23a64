import type { CSSProperties } from 'react';
import { type ErrorMap, isVisible, type RecordData, type SchemaDocument } from '../../src/client/index.js';

export type Input = SchemaDocument['form']['inputs'][number];

/** The record's value as the input holds it. */
export function initialValue(input: Input, record: RecordData): unknown {
  const value = record[input.name];
  switch (input.type) {
    // A relation's set of keys: not edited here yet (left out of the form, so never sent).
    case 'references':
      return undefined;
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
export function emptyValue(input: Input): unknown {
  switch (input.type) {
    case 'references':
      return undefined;
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

export type Status =
  | { kind: 'saving' }
  | { kind: 'saved' }
  | { kind: 'reloaded' }
  | { kind: 'error'; message: string }
  | undefined;

/** A record's form, shared by edit and create: its inputs, the messages of its refusal, and its footer. */
export function RecordForm({
  schema,
  title,
  testId,
  values,
  errors,
  status,
  onChange,
  onSubmit,
  actions,
  dialog,
}: {
  schema: SchemaDocument;
  title: React.ReactNode;
  testId: string;
  values: RecordData;
  errors: ErrorMap;
  status: Status;
  onChange: (name: string, value: unknown) => void;
  onSubmit: () => void;
  actions: React.ReactNode;
  dialog?: React.ReactNode;
}) {
  const { form } = schema;
  const visible = form.inputs.filter(
    (input) => input.type !== 'references' && isVisible(input.visibleWhen, values),
  );
  const known = new Set(form.inputs.map((input) => input.name));
  const otherErrors = Object.entries(errors).filter(([key]) => !known.has(key));
  return (
    <section aria-labelledby="form-title">
      <h2 id="form-title">{title}</h2>
      <form
        id={form.id}
        className="grid-form"
        data-testid={testId}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
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
          {actions}
        </div>
      </form>
      {dialog}
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
