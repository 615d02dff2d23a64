import { useEffect, useState } from 'react';
import {
  type FilterLeaf,
  type FilterNode,
  fetchList,
  isLengthAware,
  type ListQuery,
  type ListResponse,
  listUrl,
  type RecordData,
  type ResourceEntry,
  type SchemaDocument,
} from '../../src/client/index.js';
import { FilterPanel } from './FilterPanel.js';
import { type Condition, toLeaf } from './filters.js';
import { Cell } from './format.js';
import { unauthorizedMessage, useSession } from './session.js';
import { ErrorBox, errorText, hrefFor, Loading, shownRecords } from './ui.js';

export interface ListState {
  tab: string | undefined;
  /** `key` or `-key`. */
  sort: string | undefined;
  search: string;
  conditions: Condition[];
  trashed: boolean;
  page: number;
}

export function emptyListState(schema: SchemaDocument): ListState {
  return {
    tab: schema.table.tabs[0]?.key,
    sort: undefined,
    search: '',
    conditions: [],
    trashed: false,
    page: 1,
  };
}

/** A tab's filter (written like defaultFilters) as leaves. */
function tabLeaves(filter: SchemaDocument['table']['tabs'][number]['filter']): FilterLeaf[] {
  const leaves: FilterLeaf[] = [];
  for (const [name, value] of Object.entries(filter)) {
    if (typeof value === 'object')
      for (const [op, operand] of Object.entries(value))
        leaves.push({ name, op: op as FilterLeaf['op'] & string, value: operand });
    else leaves.push({ name, value });
  }
  return leaves;
}

export function listQuery(schema: SchemaDocument, state: ListState): ListQuery {
  const filter: FilterNode[] = [];
  const tab = schema.table.tabs.find((candidate) => candidate.key === state.tab);
  if (tab) filter.push(...tabLeaves(tab.filter));
  for (const condition of state.conditions) {
    const leaf = toLeaf(condition, schema);
    if (leaf) filter.push(leaf);
  }
  if (state.trashed) filter.push({ name: 'trashed', value: true });
  return {
    filter,
    ...(state.sort ? { sort: state.sort } : {}),
    ...(state.search ? { search: state.search } : {}),
    ...(state.page > 1 ? { page: state.page } : {}),
  };
}

type Loaded = { url: string; response: ListResponse<RecordData> } | { url: string; error: string };

export function ListView({
  entry,
  schema,
  state,
  onState,
}: {
  entry: ResourceEntry;
  schema: SchemaDocument;
  state: ListState;
  onState: (state: ListState) => void;
}) {
  const { table } = schema;
  const query = listQuery(schema, state);
  const url = listUrl(entry.list, query);
  const [loaded, setLoaded] = useState<Loaded>();
  const [searchText, setSearchText] = useState(state.search);
  const [showFilters, setShowFilters] = useState(state.conditions.length > 0);
  const { options, report } = useSession();

  // biome-ignore lint/correctness/useExhaustiveDependencies: the URL and the token (options) say everything the request depends on
  useEffect(() => {
    const controller = new AbortController();
    fetchList(entry.list, query, { ...options, signal: controller.signal }).then(
      (response) => {
        for (const row of Array.isArray(response) ? response : response.data)
          if (row.id !== undefined) shownRecords.set(`${entry.path}/${String(row.id)}`, row);
        setLoaded({ url, response });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        report(error);
        setLoaded({ url, error: unauthorizedMessage(error) ?? errorText(error) });
      },
    );
    return () => controller.abort();
  }, [url, options]);

  const update = (changes: Partial<ListState>) => onState({ ...state, page: 1, ...changes });
  const searchable = table.columns.some((column) => column.searchable);
  const loading = loaded?.url !== url;
  const response = loaded && 'response' in loaded ? loaded.response : undefined;
  const rows = response ? (Array.isArray(response) ? response : response.data) : [];
  const lengthAware = response && isLengthAware(response) ? response : undefined;

  const toggleSort = (key: string) => update({ sort: state.sort === key ? `-${key}` : key });

  return (
    <section aria-labelledby="list-title">
      <div className="list-head">
        <h2 id="list-title">{table.title}</h2>
        {searchable && (
          <form
            className="search"
            aria-label="Search"
            onSubmit={(event) => {
              event.preventDefault();
              update({ search: searchText.trim() });
            }}
          >
            <label htmlFor="search-input">Search</label>
            <input
              id="search-input"
              type="search"
              data-testid="search"
              value={searchText}
              onChange={(event) => setSearchText(event.target.value)}
            />
            <button type="submit">Search</button>
          </form>
        )}
      </div>

      {table.tabs.length > 0 && (
        <fieldset className="tabs" data-testid="tabs">
          <legend className="visually-hidden">Tabs</legend>
          {table.tabs.map((tab) => (
            <button
              key={tab.key}
              type="button"
              className="tab"
              aria-pressed={state.tab === tab.key}
              onClick={() => update({ tab: tab.key })}
            >
              {tab.label}
            </button>
          ))}
        </fieldset>
      )}

      <div className="toolbar">
        {table.filters.length > 0 && (
          <button
            type="button"
            aria-expanded={showFilters}
            aria-controls="filter-panel"
            onClick={() => setShowFilters(!showFilters)}
          >
            Filters{state.conditions.length > 0 ? ` (${state.conditions.length})` : ''}
          </button>
        )}
        {table.softDeletes.enabled && (
          <label className="inline">
            <input
              type="checkbox"
              data-testid="show-deleted"
              checked={state.trashed}
              onChange={(event) => update({ trashed: event.target.checked })}
            />
            Show deleted
          </label>
        )}
      </div>

      {showFilters && (
        <FilterPanel
          schema={schema}
          applied={state.conditions}
          onApply={(conditions) => update({ conditions })}
        />
      )}

      {loaded && 'error' in loaded && !loading && <ErrorBox message={loaded.error} />}
      {loading && <Loading />}

      <div className="table-wrap">
        <table data-testid="records" aria-busy={loading}>
          <thead>
            <tr>
              {table.columns.map((column) => {
                const direction =
                  state.sort === column.key
                    ? 'ascending'
                    : state.sort === `-${column.key}`
                      ? 'descending'
                      : undefined;
                return (
                  <th key={column.key} scope="col" aria-sort={direction ?? 'none'}>
                    {column.sortable ? (
                      <button type="button" className="sort" onClick={() => toggleSort(column.key)}>
                        {column.label}
                        <span aria-hidden="true">
                          {direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : ' ↕'}
                        </span>
                      </button>
                    ) : (
                      column.label
                    )}
                  </th>
                );
              })}
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const id = row.id;
              return (
                <tr key={String(id ?? index)} data-testid="record-row">
                  {table.columns.map((column) => (
                    <td key={column.key} data-column={column.key}>
                      <Cell
                        value={row[column.key]}
                        type={column.type}
                        colorMap={column.formatOptions.colorMap}
                      />
                    </td>
                  ))}
                  <td className="actions">
                    {id !== undefined && (
                      <>
                        <a href={hrefFor(entry.path, String(id))}>View</a>{' '}
                        {schema.form.inputs.length > 0 && (
                          <a href={hrefFor(entry.path, String(id), true)}>Edit</a>
                        )}
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
            {response && rows.length === 0 && (
              <tr>
                <td colSpan={table.columns.length + 1} className="muted">
                  No records.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>

      {response && !Array.isArray(response) && (
        <nav className="pager" aria-label="Pagination">
          <button
            type="button"
            disabled={loading || !response.prev_page_url}
            onClick={() => onState({ ...state, page: state.page - 1 })}
          >
            Previous
          </button>
          <span data-testid="page-info">
            {lengthAware
              ? `Page ${lengthAware.current_page} of ${lengthAware.last_page} · ${lengthAware.total} records`
              : `${rows.length} records`}
          </span>
          <button
            type="button"
            disabled={loading || !response.next_page_url}
            onClick={() => onState({ ...state, page: state.page + 1 })}
          >
            Next
          </button>
        </nav>
      )}

      <p className="request">
        Last request: <code data-testid="last-request">{loaded?.url ?? url}</code>
      </p>
    </section>
  );
}
