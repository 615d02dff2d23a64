import { useEffect, useMemo, useState } from 'react';
import {
  type ClientOptions,
  type ExportQuery,
  exportUrl,
  fetchExport,
  fetchList,
  isLengthAware,
  type LengthAwarePage,
  type ListResponse,
  listUrl,
  type RecordData,
  type ResourceEntry,
  restoreRecord,
  type SchemaDocument,
} from '../../src/client/index.js';
import { dashboardParts } from './counts.js';
import { FilterPanel } from './FilterPanel.js';
import { Cell } from './format.js';
import { go } from './navigation.js';
import {
  can,
  canCreate,
  canEdit,
  deletedAt,
  includedRelations,
  recordLabel,
  recordNoun,
  relatedRecord,
} from './records.js';
import {
  dashboardHref,
  exportQuery,
  hrefFor,
  type ListState,
  listHref,
  listQuery,
  listSearch,
  listStateFromSearch,
  newHref,
} from './routes.js';
import { unauthorizedMessage, useSession } from './session.js';
import { ErrorBox, errorText, Loading } from './ui.js';

/** The page sizes offered; the service's own default maximum is 100. */
const PAGE_SIZES = [10, 15, 25, 50, 100];

function pageSizes(schema: SchemaDocument, current: number | undefined): number[] {
  // A document that states the endpoint's limit (`table.perPage.max`) keeps the choice within it.
  const max = (schema.table as { perPage?: { max?: number } }).perPage?.max ?? 100;
  const sizes = new Set(PAGE_SIZES.filter((size) => size <= max));
  if (current !== undefined) sizes.add(current);
  return [...sizes].sort((a, b) => a - b);
}

type Loaded = { url: string; response: ListResponse<RecordData> } | { url: string; error: string };

export function ListView({
  entry,
  schema,
  index,
  search,
}: {
  entry: ResourceEntry;
  schema: SchemaDocument;
  index: readonly ResourceEntry[];
  /** The list state as the address holds it. */
  search: string;
}) {
  const { table } = schema;
  const state = useMemo(() => listStateFromSearch(schema, search), [schema, search]);
  const query = listQuery(schema, state);
  const url = listUrl(entry.list, query);
  const [loaded, setLoaded] = useState<Loaded>();
  const [reloads, setReloads] = useState(0);
  const [notice, setNotice] = useState<string>();
  const [searchText, setSearchText] = useState(state.search);
  const [showFilters, setShowFilters] = useState(state.conditions.length > 0);
  const { options, report } = useSession();

  // biome-ignore lint/correctness/useExhaustiveDependencies: the URL and the token (options) say everything the request depends on; `reloads` asks again after a restore
  useEffect(() => {
    const controller = new AbortController();
    fetchList(entry.list, query, { ...options, signal: controller.signal }).then(
      (response) => setLoaded({ url, response }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        report(error);
        setLoaded({ url, error: unauthorizedMessage(error) ?? errorText(error) });
      },
    );
    return () => controller.abort();
  }, [url, options, reloads]);

  // Back, Forward or a link may change the search the box shows.
  useEffect(() => setSearchText(state.search), [state.search]);

  /** Every change is a new address: Back undoes it, and a reload or a shared link shows the same list. */
  const show = (next: ListState) => {
    setNotice(undefined);
    go(listHref(entry.path, listSearch(schema, next)));
  };
  const update = (changes: Partial<ListState>) => show({ ...state, page: 1, ...changes });
  const toPage = (page: number) => show({ ...state, page });

  const searchable = table.columns.some((column) => column.searchable);
  const loading = loaded?.url !== url;
  const response = loaded && 'response' in loaded ? loaded.response : undefined;
  const rows = response ? (Array.isArray(response) ? response : response.data) : [];
  const lengthAware = response && isLengthAware(response) ? response : undefined;
  const current = lengthAware?.current_page ?? state.page;
  const perPage = state.perPage ?? (response && !Array.isArray(response) ? response.per_page : undefined);
  const relations = includedRelations(
    schema,
    table.columns.map((column) => column.key),
  );
  const noun = recordNoun(schema);
  const editable = canEdit(schema);
  const restorable = can(schema, 'restore');

  const toggleSort = (key: string) => update({ sort: state.sort === key ? `-${key}` : key });

  const restore = async (row: RecordData) => {
    const id = String(row.id);
    try {
      await restoreRecord(schema.form.endpoint, id, options);
      setNotice(`Restored ${recordLabel(schema, row, id)}.`);
      setReloads((count) => count + 1);
    } catch (error) {
      report(error);
      setNotice(undefined);
      setLoaded({ url, error: unauthorizedMessage(error) ?? errorText(error) });
    }
  };

  return (
    <section aria-labelledby="list-title">
      <div className="list-head">
        <h2 id="list-title">{table.title}</h2>
        {dashboardParts(schema) && (
          <a href={dashboardHref(entry.path)} className="button" data-testid="dashboard-link">
            Dashboard
          </a>
        )}
        {canCreate(schema) && (
          <a href={newHref(entry.path)} className="button primary" data-testid="new-record">
            New {noun}
          </a>
        )}
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
        {table.exports.includes('csv') && (
          <ExportAction list={entry.list} query={exportQuery(schema, state, entry.resource)} />
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
          // The applied conditions come from the address: Back or a link starts a fresh draft.
          key={JSON.stringify(state.conditions.map(({ id: _, ...condition }) => condition))}
          schema={schema}
          applied={state.conditions}
          onApply={(conditions) => update({ conditions })}
        />
      )}

      {notice && (
        <p className="success" role="status" data-testid="list-notice">
          {notice}
        </p>
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
            {rows.map((row, position) => {
              const id = row.id === undefined || row.id === null ? undefined : String(row.id);
              const deleted = deletedAt(schema, row) !== undefined;
              const label = id === undefined ? '' : recordLabel(schema, row, id);
              return (
                <tr
                  key={id ?? position}
                  data-testid="record-row"
                  data-deleted={deleted ? 'true' : undefined}
                  className={deleted ? 'deleted' : undefined}
                >
                  {table.columns.map((column) => {
                    const relation = relations.find((candidate) => candidate.key === column.key);
                    const related = relation ? relatedRecord(relation, row, index) : undefined;
                    return (
                      <td key={column.key} data-column={column.key}>
                        {related ? (
                          related.href ? (
                            <a href={related.href}>{related.text}</a>
                          ) : (
                            related.text
                          )
                        ) : (
                          <Cell
                            value={row[column.key]}
                            type={column.type}
                            colorMap={column.formatOptions.colorMap}
                          />
                        )}
                      </td>
                    );
                  })}
                  <td className="actions">
                    {deleted && <span className="badge badge-red">Deleted</span>}{' '}
                    {id !== undefined && (
                      <>
                        <a href={hrefFor(entry.path, id)} aria-label={`View ${label}`}>
                          View
                        </a>{' '}
                        {editable && !deleted && (
                          <a href={hrefFor(entry.path, id, true)} aria-label={`Edit ${label}`}>
                            Edit
                          </a>
                        )}
                        {restorable && deleted && (
                          <button
                            type="button"
                            className="link"
                            aria-label={`Restore ${label}`}
                            onClick={() => void restore(row)}
                          >
                            Restore
                          </button>
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
            onClick={() => toPage(current - 1)}
          >
            Previous
          </button>
          {lengthAware && (
            <ul className="pages">
              {lengthAware.links.map((link, position) => {
                // The envelope's own window of page numbers (Laravel's), its gaps as "…".
                const page = /^\d+$/.test(link.label) ? Number(link.label) : undefined;
                if (page === undefined)
                  return link.label === '...' ? (
                    // biome-ignore lint/suspicious/noArrayIndexKey: a gap has no identity but its place
                    <li key={`gap-${position}`} className="gap" aria-hidden="true">
                      …
                    </li>
                  ) : null;
                return (
                  <li key={page}>
                    <button
                      type="button"
                      className="page"
                      aria-label={`Page ${page}`}
                      aria-current={link.active ? 'page' : undefined}
                      disabled={loading}
                      onClick={() => toPage(page)}
                    >
                      {page}
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
          <button
            type="button"
            disabled={loading || !response.next_page_url}
            onClick={() => toPage(current + 1)}
          >
            Next
          </button>
          <span data-testid="page-info">
            {lengthAware ? pageSummary(lengthAware) : `${rows.length} records`}
          </span>
          <label className="inline per-page">
            Per page
            <select
              data-testid="per-page"
              value={perPage === undefined ? '' : String(perPage)}
              onChange={(event) => update({ perPage: Number(event.target.value) })}
            >
              {pageSizes(schema, perPage).map((size) => (
                <option key={size} value={String(size)}>
                  {size}
                </option>
              ))}
            </select>
          </label>
        </nav>
      )}

      <p className="request">
        Last request: <code data-testid="last-request">{loaded?.url ?? url}</code>
      </p>
    </section>
  );
}

/** `attachment; filename="users-2026-11-26.csv"` → the name; the service sends only safe characters. */
function filenameOf(disposition: string | null, fallback: string): string {
  return /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? fallback;
}

/**
 * "Export CSV": every record of the list as the table shows it (filters, search, sort, columns), made
 * by the service (react-admin's own export fetches at most 1,000 rows into the browser). Without a
 * token a plain link downloads it; a link cannot send the bearer token, so with one the export is
 * fetched with it and saved from a blob.
 */
function ExportAction({ list, query }: { list: string; query: ExportQuery }) {
  const { options, report } = useSession();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const href = exportUrl(list, query, 'csv');
  const bearer = options.headers?.authorization !== undefined;
  const save = async (withToken: ClientOptions) => {
    setBusy(true);
    setProblem(undefined);
    try {
      const response = await fetchExport(list, query, 'csv', withToken);
      const blob = await response.blob();
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = filenameOf(response.headers.get('content-disposition'), 'export.csv');
      document.body.append(link);
      link.click();
      link.remove();
      // After the click has handed the blob to the download: revoking at once can cancel it.
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    } catch (error) {
      report(error);
      setProblem(unauthorizedMessage(error) ?? errorText(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {bearer ? (
        <button type="button" data-testid="export" disabled={busy} onClick={() => void save(options)}>
          {busy ? 'Exporting…' : 'Export CSV'}
        </button>
      ) : (
        <a href={href} download className="button" data-testid="export">
          Export CSV
        </a>
      )}
      {problem && (
        <span className="export-problem" role="alert" data-testid="export-problem">
          {problem}
        </span>
      )}
    </>
  );
}

/**
 * "Page 2 of 40 · 600 records", as the endpoint's count strategy allows: an estimated total is shown
 * as one ("about"), and without a total (`'none'`) only the page is named.
 */
function pageSummary(page: LengthAwarePage<unknown>): string {
  if (page.total === null || page.last_page === null) return `Page ${page.current_page}`;
  const about = page.total_is_estimate ? 'about ' : '';
  return `Page ${page.current_page} of ${about}${page.last_page} · ${about}${page.total} records`;
}
