import { Grid, Typography } from '@mui/material';
import type { ReactElement, ReactNode } from 'react';
import {
  AutocompleteArrayInput,
  AutocompleteInput,
  BooleanInput,
  DateInput,
  DateTimeInput,
  maxLength,
  minLength,
  NumberInput,
  PasswordInput,
  ReferenceArrayInput,
  ReferenceInput,
  required,
  SelectInput,
  TextInput,
  useRecordContext,
  type Validator,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import { isVisible, type RecordData, type SchemaDocument } from '../../src/client/index.js';
import { type Catalog, pathOfResource, representation, titleOf } from './catalog.js';
import { relationOfKey } from './fields.js';

type FormInput = SchemaDocument['form']['inputs'][number];

/** Shown only while the form's values meet the input's `visibleWhen` (the rule the service checks too). */
function Visible({ rule, children }: { rule: FormInput['visibleWhen']; children: ReactNode }) {
  const values = useWatch();
  return isVisible(rule, values) ? children : null;
}

/** A JSON column's value as text in the form; `jsonValues` turns it back before a save. */
const jsonText = (value: unknown): string =>
  value === undefined || value === null
    ? ''
    : typeof value === 'string'
      ? value
      : JSON.stringify(value, null, 2);

const validJson: Validator = (value: unknown) => {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  try {
    JSON.parse(value);
    return undefined;
  } catch {
    return 'Must be valid JSON.';
  }
};

/** The JSON inputs of a form: what `jsonValues` parses. */
export const jsonInputs = (schema: SchemaDocument): string[] =>
  schema.form.inputs
    .filter((input) => schema.detail.fields.find((field) => field.key === input.name)?.type === 'json')
    .map((input) => input.name);

/** A save's body with each JSON input's text parsed (empty: null). */
export function jsonValues(schema: SchemaDocument) {
  const names = jsonInputs(schema);
  return (data: RecordData): RecordData => {
    const out = { ...data };
    for (const name of names) {
      const value = out[name];
      if (typeof value === 'string') out[name] = value.trim() === '' ? null : JSON.parse(value);
    }
    return out;
  };
}

/**
 * The order of a related resource's choices: by its title where it sorts so, else its endpoint's own
 * (react-admin's default, `id`, is no sort every endpoint allows).
 */
function choiceOrder(catalog: Catalog, path: string) {
  const related = catalog.schemas.get(path);
  const title = related?.detail.titleColumns[0];
  return { field: title && related.table.sorts.includes(title) ? title : '', order: 'ASC' as const };
}

/** The related resource's search, when it has one; else its first page, as it is ordered. */
function searchOf(catalog: Catalog, path: string) {
  const searchable = catalog.schemas.get(path)?.table.columns.some((column) => column.searchable) ?? false;
  return (text: string) => (searchable && text.trim() !== '' ? { q: text } : {});
}

function reference(
  catalog: Catalog,
  schema: SchemaDocument,
  input: FormInput,
  validate: Validator[],
): ReactElement | undefined {
  const relation = relationOfKey(schema, input.name);
  if (relation) {
    const path = pathOfResource(catalog, relation.resource, relation.schema);
    if (!path) return undefined;
    return (
      <ReferenceInput source={input.name} reference={path} sort={choiceOrder(catalog, path)}>
        <AutocompleteInput
          label={input.label}
          validate={validate}
          filterToQuery={searchOf(catalog, path)}
          fullWidth
        />
      </ReferenceInput>
    );
  }
  const references = input.references;
  if (!references) return undefined;
  const path = pathOfResource(catalog, references.resource, references.schema);
  const related = path ? catalog.schemas.get(path) : undefined;
  if (!path || !related) return undefined;
  const name = representation(related, references.key);
  return (
    <WholeLinks name={input.name} label={input.label}>
      <ReferenceArrayInput source={input.name} reference={path} sort={choiceOrder(catalog, path)}>
        <AutocompleteArrayInput
          label={input.label}
          validate={validate}
          filterToQuery={searchOf(catalog, path)}
          optionText={(record: RecordData) => titleOf(related.detail.titleColumns, record) ?? name(record)}
          fullWidth
        />
      </ReferenceArrayInput>
    </WholeLinks>
  );
}

/**
 * A `references` input replaces every link: where the record has more links than its read gave
 * (`<relation>_total` past the keys, see `editQuery`), the form leaves the input out, so a save never
 * drops the links it did not show.
 */
function WholeLinks({ name, label, children }: { name: string; label: string; children: ReactNode }) {
  const record = useRecordContext<RecordData>();
  const total = record?.[`${name}_total`];
  const keys = record?.[name];
  if (typeof total === 'number' && Array.isArray(keys) && total > keys.length)
    return (
      <Typography variant="body2" color="text.secondary" sx={{ my: 2 }} data-testid={`too-many-${name}`}>
        {label}: {total} links, more than this form edits at once ({keys.length}); change them through the
        API.
      </Typography>
    );
  return children;
}

/** One input of the schema document's form, as react-admin's input for its type and column. */
function formInput(catalog: Catalog, schema: SchemaDocument, input: FormInput): ReactElement {
  const validate: Validator[] = [];
  if (input.required) validate.push(required());
  if (input.minLength !== undefined) validate.push(minLength(input.minLength));
  if (input.maxLength !== undefined) validate.push(maxLength(input.maxLength));
  const common = { source: input.name, label: input.label, validate, fullWidth: true };
  const linked = reference(catalog, schema, input, validate);
  if (linked) return linked;
  // The column's type says more than the input's for instants and JSON (both edited as text otherwise).
  const shown = schema.detail.fields.find((field) => field.key === input.name)?.type;
  if (shown === 'datetime') return <DateTimeInput {...common} />;
  if (shown === 'json')
    return (
      <TextInput {...common} multiline minRows={3} format={jsonText} validate={[...validate, validJson]} />
    );
  switch (input.type) {
    case 'email':
      return <TextInput {...common} type="email" />;
    case 'password':
      return <PasswordInput {...common} />;
    case 'textarea':
      return <TextInput {...common} multiline minRows={3} />;
    case 'select':
      return (
        <SelectInput
          {...common}
          choices={(input.options ?? []).map((option) => ({ id: option.value, name: option.label }))}
        />
      );
    case 'checkbox':
    case 'switch':
      return <BooleanInput source={input.name} label={input.label} />;
    case 'date':
      return <DateInput {...common} />;
    case 'number':
      return <NumberInput {...common} />;
    default:
      return <TextInput {...common} />;
  }
}

/** The form's inputs on its 12-column grid (`cols`, and `md` from the medium breakpoint). */
export function FormInputs({ catalog, schema }: { catalog: Catalog; schema: SchemaDocument }) {
  return (
    <Grid container columnSpacing={2} sx={{ width: '100%' }}>
      {schema.form.inputs.map((input) => (
        <Visible key={input.name} rule={input.visibleWhen}>
          <Grid size={{ xs: input.cols, md: input.md }}>{formInput(catalog, schema, input)}</Grid>
        </Visible>
      ))}
    </Grid>
  );
}
