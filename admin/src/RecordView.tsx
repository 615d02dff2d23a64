import { useCallback, useEffect, useState } from 'react';
import {
  ApiError,
  deleteRecord,
  fetchRecord,
  type RecordResult,
  type ResourceEntry,
  restoreRecord,
  type SchemaDocument,
} from '../../src/client/index.js';
import { DeleteDialog } from './DeleteDialog.js';
import { EditForm } from './EditForm.js';
import { go } from './navigation.js';
import { RecordDetail } from './RecordDetail.js';
import {
  can,
  canEdit,
  deletedAt,
  includedRelations,
  keepRelations,
  recordLabel,
  recordName,
  recordNoun,
  singular,
} from './records.js';
import { hrefFor } from './routes.js';
import { unauthorizedMessage, useSession } from './session.js';
import { ErrorBox, errorText, Loading, useDocumentTitle } from './ui.js';

type Loaded = RecordResult | { error: string };

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
        <RecordDetail schema={schema} index={index} record={loadedRecord} id={id}>
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
        </RecordDetail>
      )}
      {confirmDelete && (
        <DeleteDialog
          label={label}
          noun={noun}
          softDeletes={schema.table.softDeletes.enabled}
          onCancel={() => setConfirmDelete(false)}
          onDelete={() => void remove()}
        />
      )}
    </>
  );
}
