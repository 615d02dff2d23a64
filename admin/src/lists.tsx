import DownloadIcon from '@mui/icons-material/Download';
import InsightsIcon from '@mui/icons-material/Insights';
import RestoreIcon from '@mui/icons-material/RestoreFromTrash';
import { type ReactElement, useMemo } from 'react';
import {
  BulkDeleteButton,
  Button,
  ColumnsButton,
  CreateButton,
  DataTable,
  FilterButton,
  FunctionField,
  List,
  NumberField,
  TopToolbar,
  useDataProvider,
  useListContext,
  useNotify,
  useRecordContext,
  useRefresh,
  useResourceContext,
  useStore,
} from 'react-admin';
import { labelFor, type RecordData, type SchemaDocument } from '../../src/client/index.js';
import type { LoadMeta, ServiceDataProvider } from '../../src/providers/react-admin.js';
import { type Catalog, can, canCreate, keyOf, pathOfResource } from './catalog.js';
import { dashboardParts } from './dashboard-plan.js';
import { columnField, keyField, relationOfKey, valueField } from './fields.js';
import { listFilters } from './filters.js';
import { listTopic, useCoalesced, useLiveTopic } from './live.js';

/** A column of a list: what it shows, what it sorts by, and what the request must ask for it. */
export interface ListColumn {
  /** Its sort name where it sorts (a relation's title column, `posts_count`), else its column. */
  source: string;
  label: string;
  sortable: boolean;
  /** The record's own columns it needs (`fields=`). */
  fields: string[];
  /** The relation it counts (`count=`), when the endpoint allows it. */
  count?: string;
  /** The relation it reads a value of (`include=`), when no foreign key shows it. */
  include?: string;
  field: ReactElement;
}

/** The most columns shown before a user chooses: the others wait in the column chooser. */
const SHOWN = 10;

/**
 * The list's columns from its schema document: `table.columns` (a foreign key shows the related
 * record's title, and sorts by it where the endpoint allows), then every sort no column offers — a
 * to-one relation's title (`department.name`), a count (`posts_count`) — hidden until chosen.
 */
export function listColumns(
  catalog: Catalog,
  schema: SchemaDocument,
): { columns: ListColumn[]; hidden: string[] } {
  const { table, detail } = schema;
  const columns: ListColumn[] = table.columns.map((column) => {
    const relation = relationOfKey(schema, column.key);
    const titleSort = relation && table.sorts.find((sort) => sort.startsWith(`${relation.name}.`));
    return {
      source: titleSort ?? column.key,
      label: column.label,
      sortable: titleSort !== undefined || column.sortable,
      fields: [column.key],
      field: columnField(catalog, schema, column.key, column.type),
    };
  });
  const hidden = columns.slice(SHOWN).map((column) => column.source);
  const add = (column: ListColumn) => {
    columns.push(column);
    hidden.push(column.source);
  };
  for (const sort of table.sorts) {
    if (columns.some((column) => column.source === sort)) continue;
    const collection = detail.collections.find((candidate) => `${candidate.name}_count` === sort);
    const [head = '', tail = ''] = sort.split('.');
    const relation = detail.relations.find((candidate) => candidate.name === head);
    if (collection)
      add({
        source: sort,
        label: `${collection.label} (count)`,
        sortable: true,
        fields: [],
        ...(collection.counted ? { count: collection.name } : {}),
        field: <NumberField source={sort} />,
      });
    else if (relation && tail !== '' && pathOfResource(catalog, relation.resource, relation.schema))
      add({
        source: sort,
        label: detail.fields.find((field) => field.key === relation.key)?.label ?? labelFor(relation.name),
        sortable: true,
        fields: [relation.key],
        field: keyField(catalog, relation, 'text'),
      });
    else if (tail !== '' && table.fields[head])
      add({
        source: sort,
        label: table.filters.find((filter) => filter.name === sort)?.label ?? labelFor(sort),
        sortable: true,
        fields: [],
        include: head,
        field: (
          <FunctionField
            source={sort}
            render={(record: RecordData) => String((record[head] as RecordData | null)?.[tail] ?? '')}
          />
        ),
      });
    else {
      const shown = detail.fields.find((field) => field.key === sort);
      if (shown)
        add({
          source: sort,
          label: shown.label,
          sortable: true,
          fields: [sort],
          field: valueField(sort, shown.type),
        });
    }
  }
  return { columns, hidden };
}

/** The soft-delete column: Laravel's `deleted_at`, which the document does not name otherwise. */
const DELETED_AT = 'deleted_at';

/**
 * What a page of the list asks for: only the shown columns' fields (with the key, the soft-delete mark
 * and the title columns), their counts and includes.
 */
function loadMeta(catalog: Catalog, path: string, shown: readonly ListColumn[]): LoadMeta {
  const schema = catalog.schemas.get(path) as SchemaDocument;
  const key = keyOf(catalog, path);
  const resource = catalog.entries.find((entry) => entry.path === path)?.resource ?? path;
  const own = schema.table.fields[resource] ?? [];
  const wanted = new Set([key, ...schema.detail.titleColumns, ...shown.flatMap((column) => column.fields)]);
  if (schema.table.softDeletes.enabled) wanted.add(DELETED_AT);
  const fields = own.filter((name) => wanted.has(name));
  const count = shown.flatMap((column) => (column.count ? [column.count] : []));
  const include = shown.flatMap((column) => (column.include ? [column.include] : []));
  return {
    ...(own.length > 0 ? { fields } : {}),
    ...(count.length > 0 ? { count } : {}),
    ...(include.length > 0 ? { include } : {}),
  };
}

const isDeleted = (record: RecordData | undefined) =>
  record?.[DELETED_AT] !== undefined && record?.[DELETED_AT] !== null && record?.[DELETED_AT] !== '';

function RestoreButton() {
  const record = useRecordContext();
  const resource = useResourceContext() ?? '';
  const dataProvider = useDataProvider<ServiceDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  if (!record || !isDeleted(record)) return null;
  return (
    <Button
      label="Restore"
      onClick={(event) => {
        event.stopPropagation();
        dataProvider.restore(resource, { id: record.id }).then(
          () => {
            notify('Restored', { type: 'success' });
            refresh();
          },
          (error: Error) => notify(error.message, { type: 'error' }),
        );
      }}
    >
      <RestoreIcon />
    </Button>
  );
}

/** CSV of every record the list's filters select, in its order, made by the service (not the 1,000 in the browser). */
function ExportCsvButton({ meta }: { meta: LoadMeta }) {
  const { filterValues, sort, resource } = useListContext();
  const dataProvider = useDataProvider<ServiceDataProvider>();
  const notify = useNotify();
  const download = async () => {
    try {
      const response = await dataProvider.exportList(resource, { filter: filterValues, sort, meta }, 'csv');
      const disposition = response.headers.get('content-disposition') ?? '';
      const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? `${resource}.csv`;
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (error) {
      notify(error instanceof Error ? error.message : String(error), { type: 'error' });
    }
  };
  return (
    <Button label="Export CSV" onClick={download}>
      <DownloadIcon />
    </Button>
  );
}

function ListActions({ schema, path, meta }: { schema: SchemaDocument; path: string; meta: LoadMeta }) {
  return (
    <TopToolbar>
      <FilterButton />
      <ColumnsButton />
      {dashboardParts(schema) && (
        <Button label="Dashboard" href={`#/${path}/dashboard`}>
          <InsightsIcon />
        </Button>
      )}
      {schema.table.exports.includes('csv') && <ExportCsvButton meta={meta} />}
      {canCreate(schema) && <CreateButton />}
    </TopToolbar>
  );
}

/** The list refetches its page when its resource changes (an event names ids, not rows). */
function LiveList({ path }: { path: string }) {
  const { refetch } = useListContext();
  const refetchSoon = useCoalesced(() => void refetch());
  useLiveTopic(listTopic(path), refetchSoon);
  return null;
}

/** A resource's list, drawn from its schema document. */
export function ListPage({ catalog, path }: { catalog: Catalog; path: string }) {
  const schema = catalog.schemas.get(path) as SchemaDocument;
  const { columns, hidden } = useMemo(() => listColumns(catalog, schema), [catalog, schema]);
  // The column chooser's choice (DataTable keeps it under this key): a page asks only for those fields.
  const [hiddenNow] = useStore<string[]>(`${path}.datatable`, hidden);
  const shown = columns.filter((column) => !hiddenNow.includes(column.source));
  const meta = loadMeta(catalog, path, shown);
  const restorable = schema.table.softDeletes.enabled && can(schema, 'restore');
  return (
    <List
      queryOptions={{ meta: { ...meta } }}
      filters={listFilters(schema)}
      actions={<ListActions schema={schema} path={path} meta={meta} />}
      // No sort until one is picked: the endpoint's own default order (the key may not be sortable).
      sort={{ field: '', order: 'ASC' }}
      perPage={25}
      exporter={false}
      title={schema.table.title}
    >
      {catalog.live?.has(path) && <LiveList path={path} />}
      <DataTable
        hiddenColumns={hidden}
        rowClick={can(schema, 'read') ? 'show' : false}
        bulkActionButtons={can(schema, 'delete') ? <BulkDeleteButton mutationMode="pessimistic" /> : false}
        rowSx={(record) => (isDeleted(record) ? { opacity: 0.55, textDecoration: 'line-through' } : {})}
        sx={{ overflowX: 'auto' }}
      >
        {columns.map((column) => (
          <DataTable.Col
            key={column.source}
            source={column.source}
            label={column.label}
            disableSort={!column.sortable}
          >
            {column.field}
          </DataTable.Col>
        ))}
        {restorable && (
          <DataTable.Col label="Restore" disableSort>
            <RestoreButton />
          </DataTable.Col>
        )}
      </DataTable>
    </List>
  );
}
