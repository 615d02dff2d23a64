import qs from 'qs';
import {
  buildListQuery,
  type ExportQuery,
  type FilterLeaf,
  type FilterNode,
  type ListQuery,
  type SchemaDocument,
} from '../../src/client/index.js';
import { type Condition, conditionsFromFilter, toLeaf } from './filters.js';

/**
 * Routes live in the URL hash, so the service serves one static page and every address is a link:
 * `#/<path>[?<list state>]`, `#/<path>/new`, `#/<path>/dashboard`, `#/<path>/<id>`, `#/<path>/<id>/edit`.
 */
export interface Route {
  path?: string;
  id?: string;
  view: 'list' | 'new' | 'dashboard' | 'record' | 'edit';
  /** The list state, in the list endpoint's own query-string grammar (without `?`). */
  search: string;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const cut = text.indexOf('?');
  const [path, id, edit] = (cut === -1 ? text : text.slice(0, cut)).split('/').map(safeDecode);
  const search = cut === -1 ? '' : text.slice(cut + 1);
  if (!path) return { view: 'list', search: '' };
  if (id === undefined || id === '') return { path, view: 'list', search };
  // A record whose id is literally "new" cannot be linked: the creation form takes the address.
  if (id === 'new' && edit === undefined) return { path, view: 'new', search: '' };
  // Likewise "dashboard" (its edit form, `#/<path>/dashboard/edit`, still can).
  if (id === 'dashboard' && edit === undefined) return { path, view: 'dashboard', search: '' };
  return { path, id, view: edit === 'edit' ? 'edit' : 'record', search: '' };
}

/** A hand-edited address with a stray `%` is still an address, not an exception. */
function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function hrefFor(path: string, id?: string | number, edit = false): string {
  return `#/${encodeURIComponent(path)}${id !== undefined ? `/${encodeURIComponent(String(id))}` : ''}${edit ? '/edit' : ''}`;
}

export function listHref(path: string, search = ''): string {
  return `${hrefFor(path)}${search ? `?${search}` : ''}`;
}

export function newHref(path: string): string {
  return `${hrefFor(path)}/new`;
}

export function dashboardHref(path: string): string {
  return `${hrefFor(path)}/dashboard`;
}

/** What a list shows, as the URL keeps it. */
export interface ListState {
  tab: string | undefined;
  /** `key` or `-key`. */
  sort: string | undefined;
  search: string;
  conditions: Condition[];
  trashed: boolean;
  page: number;
  /** Absent: the endpoint's default page size. */
  perPage: number | undefined;
}

export function emptyListState(schema: SchemaDocument): ListState {
  return {
    tab: schema.table.tabs[0]?.key,
    sort: undefined,
    search: '',
    conditions: [],
    trashed: false,
    page: 1,
    perPage: undefined,
  };
}

const positive = (value: unknown): number | undefined => {
  const number = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  return number >= 1 ? number : undefined;
};

/**
 * The list state an address holds. Anything the schema does not offer (an unknown tab or filter, a
 * sort on a column that is not sortable) is left out rather than sent to be refused.
 */
export function listStateFromSearch(schema: SchemaDocument, search: string): ListState {
  const state = emptyListState(schema);
  if (!search) return state;
  const parsed = qs.parse(search, { depth: 8, arrayLimit: 100, parameterLimit: 200 });
  const tab = parsed.tab;
  if (typeof tab === 'string' && schema.table.tabs.some((candidate) => candidate.key === tab))
    state.tab = tab;
  const sort = parsed.sort;
  if (
    typeof sort === 'string' &&
    schema.table.columns.some((column) => column.sortable && column.key === sort.replace(/^-/, ''))
  )
    state.sort = sort;
  if (typeof parsed.search === 'string') state.search = parsed.search;
  state.page = positive(parsed.page) ?? 1;
  state.perPage = positive(parsed.per_page);
  const { conditions, trashed } = conditionsFromFilter(parsed.filter, schema);
  state.conditions = conditions;
  state.trashed = trashed && schema.table.softDeletes.enabled;
  return state;
}

/**
 * The address form of a list state: the list endpoint's own grammar (`filter[status]=active&sort=-score`)
 * for what the user chose, plus `tab` (the tab's filter is the schema's, so it is named, not copied).
 * Defaults are left out, so a plain `#/users` is the list as it first opens.
 */
export function listSearch(schema: SchemaDocument, state: ListState): string {
  const filter: FilterLeaf[] = [];
  for (const condition of state.conditions) {
    const leaf = toLeaf(condition, schema);
    if (leaf) filter.push(leaf);
  }
  if (state.trashed) filter.push({ name: 'trashed', value: true });
  const rest = buildListQuery({
    filter,
    ...(state.sort ? { sort: state.sort } : {}),
    ...(state.search ? { search: state.search } : {}),
    ...(state.perPage !== undefined ? { per_page: state.perPage } : {}),
    ...(state.page > 1 ? { page: state.page } : {}),
  });
  const tab =
    state.tab !== undefined && state.tab !== schema.table.tabs[0]?.key
      ? `tab=${encodeURIComponent(state.tab)}`
      : '';
  return [tab, rest].filter((part) => part !== '').join('&');
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

/** The list request of a state: the tab's filter, the conditions, and the relations its columns show. */
export function listQuery(schema: SchemaDocument, state: ListState): ListQuery {
  const filter: FilterNode[] = [];
  const tab = schema.table.tabs.find((candidate) => candidate.key === state.tab);
  if (tab) filter.push(...tabLeaves(tab.filter));
  for (const condition of state.conditions) {
    const leaf = toLeaf(condition, schema);
    if (leaf) filter.push(leaf);
  }
  if (state.trashed) filter.push({ name: 'trashed', value: true });
  // A foreign key column shows the related record's title, so the relation comes along.
  const keys = new Set(schema.table.columns.map((column) => column.key));
  const include = schema.detail.relations
    .filter((relation) => relation.included && keys.has(relation.key))
    .map((relation) => relation.name);
  return {
    filter,
    ...(include.length > 0 ? { include } : {}),
    ...(state.sort ? { sort: state.sort } : {}),
    ...(state.search ? { search: state.search } : {}),
    ...(state.perPage !== undefined ? { per_page: state.perPage } : {}),
    ...(state.page > 1 ? { page: state.page } : {}),
  };
}

/**
 * The query of the list's export: what the table shows — its filters, tab, search and sort, its
 * columns as `fields` (those `table.fields` allows), a related record by its title — and no page.
 */
export function exportQuery(schema: SchemaDocument, state: ListState, resource: string): ExportQuery {
  const { per_page: _perPage, page: _page, ...query } = listQuery(schema, state);
  const allowed = (owner: string) => new Set(schema.table.fields[owner] ?? []);
  const own = allowed(resource);
  const columns = schema.table.columns.map((column) => column.key).filter((key) => own.has(key));
  const fields: Record<string, string[]> = columns.length > 0 ? { [resource]: columns } : {};
  const included = new Set(typeof query.include === 'string' ? [query.include] : (query.include ?? []));
  for (const relation of schema.detail.relations)
    if (
      included.has(relation.name) &&
      relation.titleColumns.length > 0 &&
      relation.titleColumns.every((column) => allowed(relation.name).has(column))
    )
      fields[relation.name] = [...relation.titleColumns];
  return { ...query, ...(Object.keys(fields).length > 0 ? { fields } : {}) };
}
