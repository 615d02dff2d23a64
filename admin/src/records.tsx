import {
  Alert,
  Box,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { createContext, useContext, useState } from 'react';
import {
  Button,
  Create,
  DeleteButton,
  Edit,
  EditButton,
  Labeled,
  ListButton,
  type RaRecord,
  SaveButton,
  Show,
  SimpleForm,
  SimpleShowLayout,
  Toolbar,
  TopToolbar,
  useDataProvider,
  useEditContext,
  useNotify,
  useRecordContext,
  useRedirect,
  useRefresh,
  useResourceContext,
  useSaveContext,
  useShowContext,
} from 'react-admin';
import { useFormContext, useFormState } from 'react-hook-form';
import type { RecordData, SchemaDocument, SchemaReferences } from '../../src/client/index.js';
import type { LoadMeta } from '../../src/providers/react-admin.js';
import { type Catalog, can, canEdit, keyOf, pathOfResource, singular, titleOf } from './catalog.js';
import { columnField } from './fields.js';
import { FormInputs, jsonValues } from './inputs.js';
import { isOwnWrite, recordTopic, useCoalesced, useLiveTopic } from './live.js';

type Collection = SchemaDocument['detail']['collections'][number];

/** How many related records a record's page shows of each to-many relation (its count says the rest). */
const SHOWN = 25;

/** A record's page asks for its to-many relations (the first `SHOWN` where the include takes a limit) and their counts. */
function showMeta(schema: SchemaDocument): LoadMeta {
  const { collections } = schema.detail;
  const counted = collections.filter((collection) => collection.counted).map((collection) => collection.name);
  const limits = Object.fromEntries(
    collections.flatMap((collection) =>
      collection.limit === null ? [] : [[collection.name, Math.min(SHOWN, collection.limit)] as const],
    ),
  );
  return {
    ...(collections.length > 0 ? { include: collections.map((collection) => collection.name) } : {}),
    ...(counted.length > 0 ? { count: counted } : {}),
    ...(Object.keys(limits).length > 0 ? { include_limit: limits } : {}),
  };
}

/** A related record without a schema of its own here is named by a column of a usual name. */
const guessedTitle = ['name', 'title', 'label', 'Name', 'Title'];

/** A to-many relation on a record's page: its count, and its records by title, each linking to its page. */
function CollectionField({ catalog, collection }: { catalog: Catalog; collection: Collection }) {
  const record = useRecordContext<RecordData>();
  const items = (record?.[collection.name] as RecordData[] | undefined) ?? [];
  const total = record?.[`${collection.name}_total`] ?? record?.[`${collection.name}_count`] ?? items.length;
  const path = pathOfResource(catalog, collection.resource, collection.schema);
  const key = path ? keyOf(catalog, path) : 'id';
  const noun = path ? singular(catalog.schemas.get(path)?.table.title ?? collection.label) : collection.label;
  return (
    <Labeled label={`${collection.label} (${String(total)})`} data-testid={`collection-${collection.name}`}>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
        {items.length === 0 && (
          <Typography variant="body2" color="text.secondary">
            None
          </Typography>
        )}
        {items.map((item) => {
          const id = String(item[key] ?? item.id);
          const label =
            titleOf(collection.titleColumns, item) ?? titleOf(guessedTitle, item) ?? `${noun} ${id}`;
          return path ? (
            <Chip
              key={id}
              size="small"
              label={label}
              component="a"
              href={`#/${path}/${encodeURIComponent(id)}/show`}
              clickable
            />
          ) : (
            <Chip key={id} size="small" label={label} />
          );
        })}
        {Number(total) > items.length && (
          <Typography variant="body2" color="text.secondary">
            … {items.length} of {String(total)} shown
          </Typography>
        )}
      </Box>
    </Labeled>
  );
}

function ShowActions({ schema }: { schema: SchemaDocument }) {
  return (
    <TopToolbar>
      <ListButton />
      {canEdit(schema) && <EditButton />}
      {can(schema, 'delete') && <DeleteButton mutationMode="pessimistic" />}
    </TopToolbar>
  );
}

/**
 * A record's page follows its record: a change refetches it, a deletion by someone else says so and
 * goes back to the list (this tab's own delete already goes there).
 */
function LiveShow({ path }: { path: string }) {
  const record = useRecordContext();
  const { refetch } = useShowContext();
  const notify = useNotify();
  const redirect = useRedirect();
  const refetchSoon = useCoalesced(() => void refetch());
  const id = record?.id;
  useLiveTopic(id === undefined ? undefined : recordTopic(path, id), (event) => {
    if (event.type !== 'deleted') return refetchSoon();
    if (id === undefined || isOwnWrite(path, id, 'deleted')) return;
    notify('This record was deleted by someone else.', { type: 'warning' });
    redirect('list', path);
  });
  return null;
}

export function ShowPage({ catalog, path }: { catalog: Catalog; path: string }) {
  const schema = catalog.schemas.get(path) as SchemaDocument;
  return (
    <Show queryOptions={{ meta: { ...showMeta(schema) } }} actions={<ShowActions schema={schema} />}>
      {catalog.live?.has(path) && <LiveShow path={path} />}
      <SimpleShowLayout>
        {schema.detail.fields.map((field) => (
          <Labeled key={field.key} label={field.label}>
            {columnField(catalog, schema, field.key, field.type)}
          </Labeled>
        ))}
        {schema.detail.collections.map((collection) => (
          <CollectionField key={collection.name} catalog={catalog} collection={collection} />
        ))}
      </SimpleShowLayout>
    </Show>
  );
}

/** The record as the service holds it after another edit (a 412), while the conflict is open. */
const ConflictContext = createContext<{ theirs: RaRecord | undefined; close: () => void }>({
  theirs: undefined,
  close: () => {},
});

const shown = (value: unknown) =>
  value === null || value === undefined
    ? '—'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

/**
 * A save refused with 412 (the record changed since it was read): the other edit's values beside
 * this form's, for every input they differ on. Keeping mine saves this form again over the record just
 * read (its ETag is the new one); taking theirs reloads the record into the form.
 */
function ConflictDialog({ schema }: { schema: SchemaDocument }) {
  const { theirs, close } = useContext(ConflictContext);
  const form = useFormContext();
  const { save } = useSaveContext();
  const refresh = useRefresh();
  if (!theirs) return null;
  const mine = form.getValues() as RecordData;
  const differing = schema.form.inputs.filter(
    (input) => JSON.stringify(mine[input.name] ?? null) !== JSON.stringify(theirs[input.name] ?? null),
  );
  return (
    <Dialog open onClose={close} aria-labelledby="conflict-title" maxWidth="md" fullWidth>
      <DialogTitle id="conflict-title">This record was changed by someone else</DialogTitle>
      <DialogContent>
        <Typography gutterBottom>
          It changed after you opened it, so your save was refused. Their values and yours:
        </Typography>
        <Table size="small" data-testid="conflict-table">
          <TableHead>
            <TableRow>
              <TableCell>Field</TableCell>
              <TableCell>Their value (saved)</TableCell>
              <TableCell>Your value</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {differing.map((input) => (
              <TableRow key={input.name} data-field={input.name}>
                <TableCell>{input.label}</TableCell>
                <TableCell>{shown(theirs[input.name])}</TableCell>
                <TableCell>{shown(mine[input.name])}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </DialogContent>
      <DialogActions>
        <Button
          label="Take theirs"
          onClick={() => {
            close();
            form.reset(theirs);
            refresh();
          }}
        />
        <Button
          label="Save mine over theirs"
          variant="contained"
          onClick={() => {
            close();
            save?.(mine);
          }}
        />
      </DialogActions>
    </Dialog>
  );
}

/**
 * Someone else's change to the record being edited. A form nobody has touched takes it at once (it is
 * read again; nothing of the user's is lost). An edited one is not reset under the user's hands: a
 * banner says so and offers to reload (dropping the edits); a save without reloading still sends the
 * ETag the form was read with, so it meets the 412 dialog rather than overwriting the other change.
 */
function LiveEditNotice({ path }: { path: string }) {
  const record = useRecordContext();
  const { refetch } = useEditContext();
  // Read while rendering: react-hook-form tracks only the parts of the form state a render reads.
  const { isDirty } = useFormState();
  const notify = useNotify();
  const redirect = useRedirect();
  const [changed, setChanged] = useState<'updated' | 'deleted'>();
  const id = record?.id;
  useLiveTopic(id === undefined ? undefined : recordTopic(path, id), (event) => {
    if (id === undefined || isOwnWrite(path, id, event.type)) return;
    if (event.type === 'deleted') return setChanged('deleted');
    if (changed === undefined && !isDirty) {
      void refetch();
      notify('This record was changed by someone else; the form shows the saved values.', { type: 'info' });
      return;
    }
    setChanged('updated');
  });
  if (changed === undefined) return null;
  return (
    <Alert
      severity="warning"
      sx={{ mb: 2, width: '100%' }}
      data-testid="live-changed"
      action={
        changed === 'deleted' ? (
          <Button label="Back to the list" onClick={() => redirect('list', path)} />
        ) : (
          <Button
            label="Reload"
            onClick={() => {
              setChanged(undefined);
              void refetch();
            }}
          />
        )
      }
    >
      {changed === 'deleted'
        ? 'This record was deleted by someone else since you opened it.'
        : 'This record was changed by someone else since you opened it. Reload to see their values (your edits are dropped), or save to compare them with yours.'}
    </Alert>
  );
}

function EditToolbar({ schema }: { schema: SchemaDocument }) {
  return (
    <Toolbar sx={{ display: 'flex', justifyContent: 'space-between' }}>
      <SaveButton />
      {can(schema, 'delete') && <DeleteButton mutationMode="pessimistic" />}
    </Toolbar>
  );
}

type ReferencesInput = SchemaDocument['form']['inputs'][number] & { references: SchemaReferences };

/**
 * The edit form's read: a record carries no keys of its many-to-many links, so each `references` input's
 * relation is included (its keys only, as many as a write may set) and turned into the keys it edits.
 */
function editQuery(schema: SchemaDocument) {
  const inputs = schema.form.inputs.filter(
    (input): input is ReferencesInput => input.references !== undefined,
  );
  const included = inputs.filter((input) => schema.table.fields[input.references.relation]);
  if (included.length === 0) return {};
  return {
    meta: {
      include: included.map((input) => input.references.relation),
      fields: Object.fromEntries(
        included.map((input) => [input.references.relation, [input.references.key]]),
      ),
      include_limit: Object.fromEntries(
        included.flatMap((input) => {
          const limit = schema.table.includeConstraints[input.references.relation]?.largestLimit;
          return limit === undefined
            ? []
            : [[input.references.relation, Math.min(limit, input.references.maxItems)]];
        }),
      ),
    },
    select: (record: RaRecord): RaRecord => {
      const keyed = { ...record };
      for (const { name, references } of included) {
        const related = record[references.relation];
        delete keyed[references.relation];
        keyed[name] = Array.isArray(related) ? related.map((item: RecordData) => item[references.key]) : [];
        // How many links there are in all (a limited include answers it): `WholeLinks` reads it.
        const total = record[`${references.relation}_total`];
        if (total !== undefined) keyed[`${name}_total`] = total;
      }
      return keyed;
    },
  };
}

export function EditPage({ catalog, path }: { catalog: Catalog; path: string }) {
  const schema = catalog.schemas.get(path) as SchemaDocument;
  const [theirs, setTheirs] = useState<RaRecord>();
  const dataProvider = useDataProvider();
  const notify = useNotify();
  const resource = useResourceContext() ?? path;
  const onError = (
    error: { status?: number; message?: string; body?: { errors?: Record<string, string> } },
    variables: { id?: RaRecord['id'] },
  ) => {
    if (error.status === 412 && variables.id !== undefined) {
      // Read again: the data provider keeps the new ETag, for a save over it.
      dataProvider.getOne(resource, { id: variables.id }).then(
        ({ data }) => setTheirs(data),
        (failure: Error) => notify(failure.message, { type: 'error' }),
      );
      return;
    }
    // A 422 keyed by the form's inputs shows under them; anything else is a notification.
    if (Object.keys(error.body?.errors ?? {}).length === 0)
      notify(error.message ?? 'The save failed.', { type: 'error' });
  };
  return (
    <ConflictContext.Provider value={{ theirs, close: () => setTheirs(undefined) }}>
      <Edit
        mutationMode="pessimistic"
        queryOptions={editQuery(schema)}
        mutationOptions={{ onError }}
        transform={jsonValues(schema)}
        redirect="show"
      >
        <SimpleForm toolbar={<EditToolbar schema={schema} />}>
          {catalog.live?.has(path) && <LiveEditNotice path={path} />}
          <FormInputs catalog={catalog} schema={schema} />
          <ConflictDialog schema={schema} />
        </SimpleForm>
      </Edit>
    </ConflictContext.Provider>
  );
}

export function CreatePage({ catalog, path }: { catalog: Catalog; path: string }) {
  const schema = catalog.schemas.get(path) as SchemaDocument;
  return (
    <Create transform={jsonValues(schema)} redirect="show">
      <SimpleForm>
        <FormInputs catalog={catalog} schema={schema} />
      </SimpleForm>
    </Create>
  );
}
