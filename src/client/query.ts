import qs from 'qs';
import { type OperatorName, operatorShapes, type ValueShape } from '../kinds/operators.js';

/**
 * The list query of a client, typed: what `buildListQuery` turns into the query string grammar that
 * the service parses (`src/request/parse.ts`). Browser- and Node-safe (no Node-only imports).
 */

/** One value: a scalar, or a list (written with indexes: `[0]=a&[1]=b`), e.g. for `in` and `between`. */
export type FilterScalar = string | number | boolean;
export type FilterValue = FilterScalar | readonly FilterScalar[];

/** The 23 operators of the query language. */
export type FilterOperator = OperatorName;

/** How an operator's value is written (`flag`: true/false, `list`: one or more, `pair`/`datePair`: two). */
export function operatorShape(op: FilterOperator): ValueShape {
  return operatorShapes[op];
}

/** `filter[name]=value` without `op`, `filter[name][op]=value` with it. */
export interface FilterLeaf {
  name: string;
  op?: FilterOperator;
  value: FilterValue;
}

/** A group: each member is a list of conditions, AND-ed; the members are OR-ed (`or`) or AND-ed (`and`). */
export type FilterGroup =
  | { or: readonly (readonly FilterNode[])[] }
  | { and: readonly (readonly FilterNode[])[] };

export type FilterNode = FilterLeaf | FilterGroup;

export interface ListQuery {
  /** Conditions, AND-ed. */
  filter?: readonly FilterNode[];
  include?: string | readonly string[];
  /**
   * Sparse fieldsets: the fields to answer by owner, the resource's name (or `''`) for the records and
   * an include path for its related records (`{ users: ['name'], roles: 'name' }`). The key is always
   * answered.
   */
  fields?: Readonly<Record<string, string | readonly string[]>>;
  /**
   * Constrained includes, by include path (which `include` must name too): the related records'
   * filter (conditions AND-ed, as `filter`'s), order (as `sort`'s) and how many per record
   * (`{ posts: 3 }`: each record's first 3, with `posts_total`).
   */
  include_filter?: Readonly<Record<string, readonly FilterNode[]>>;
  include_sort?: Readonly<Record<string, string | readonly string[]>>;
  include_limit?: Readonly<Record<string, number>>;
  count?: string | readonly string[];
  /** `name` ascending, `-name` descending; several keys in order. */
  sort?: string | readonly string[];
  search?: string;
  page?: number;
  per_page?: number;
  /** `length-aware` (the default) sends nothing. */
  pagination?: 'length-aware' | 'simple' | 'cursor';
  cursor?: string;
  all?: boolean;
  /**
   * An export: every record as CSV or NDJSON (where the endpoint allows all=true). It has no pages:
   * `exportUrl` and `fetchExport` take an `ExportQuery`, which has none of their parameters.
   */
  format?: ExportFormat;
}

/** The formats a list may be exported in. */
export type ExportFormat = 'csv' | 'ndjson';

/** What an export takes of a list query: its records' shape, no pagination. */
export type ExportQuery = Omit<ListQuery, 'page' | 'per_page' | 'pagination' | 'cursor' | 'all' | 'format'>;

export function isGroup(node: FilterNode): node is FilterGroup {
  return 'or' in node || 'and' in node;
}

type Encoded = string | string[];
type ClauseObject = { [key: string]: Encoded | { [op: string]: Encoded } | ClauseObject[] };

function encodeValue(value: FilterValue): Encoded {
  return Array.isArray(value) ? value.map((item) => String(item)) : String(value);
}

/**
 * One level of the filter tree as the object `qs` writes. A condition that cannot share the level's
 * keys (the same name and operator twice, a bare value next to operators, a second `or` group) moves
 * into a member of the level's `and` group: the meaning (AND) is the same.
 */
function clauseObject(nodes: readonly FilterNode[]): ClauseObject {
  const out: ClauseObject = {};
  const andMembers: ClauseObject[] = [];
  const overflow: FilterNode[] = [];
  for (const node of nodes) {
    if ('or' in node) {
      if (out.or === undefined) out.or = node.or.map(clauseObject);
      else overflow.push(node);
      continue;
    }
    if ('and' in node) {
      andMembers.push(...node.and.map(clauseObject));
      continue;
    }
    if (node.name === 'or' || node.name === 'and')
      throw new Error(`"${node.name}" is a group, not a filter name: use { ${node.name}: [...] }.`);
    const existing = out[node.name];
    const value = encodeValue(node.value);
    if (node.op === undefined) {
      if (existing === undefined) out[node.name] = value;
      else overflow.push(node);
    } else if (existing === undefined) {
      out[node.name] = { [node.op]: value };
    } else if (typeof existing === 'object' && !Array.isArray(existing) && !(node.op in existing)) {
      (existing as { [op: string]: Encoded })[node.op] = value;
    } else {
      overflow.push(node);
    }
  }
  for (const node of overflow) andMembers.push(clauseObject([node]));
  if (andMembers.length > 0) out.and = andMembers;
  return out;
}

const list = (value: string | readonly string[]): string =>
  typeof value === 'string' ? value : value.join(',');

/** Keys keep their brackets readable (`filter[score][gte]`); everything else is percent-encoded. */
function encoder(str: string, defaultEncoder: qs.defaultEncoder, charset: string, type: 'key' | 'value') {
  if (type === 'key') return encodeURIComponent(str).replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  return defaultEncoder(str, defaultEncoder, charset);
}

/** The query string (without `?`) of a list request, in the bracket grammar the service parses. */
export function buildListQuery(request: ListQuery): string {
  const parts: string[] = [];
  if (request.filter && request.filter.length > 0) {
    const filter = qs.stringify(
      { filter: clauseObject(request.filter) },
      { arrayFormat: 'indices', encoder },
    );
    if (filter) parts.push(filter);
  }
  // include, count and sort are comma-separated lists: their commas stay readable.
  const param = (key: string, value: string, commas = false) => {
    const encoded = encodeURIComponent(value);
    parts.push(`${key}=${commas ? encoded.replace(/%2C/gi, ',') : encoded}`);
  };
  if (request.include !== undefined) param('include', list(request.include), true);
  for (const [owner, names] of Object.entries(request.fields ?? {}))
    param(owner === '' ? 'fields' : `fields[${encodeURIComponent(owner)}]`, list(names), true);
  const includeFilter = Object.entries(request.include_filter ?? {}).filter(([, nodes]) => nodes.length > 0);
  if (includeFilter.length > 0)
    parts.push(
      qs.stringify(
        {
          include_filter: Object.fromEntries(
            includeFilter.map(([path, nodes]) => [path, clauseObject(nodes)]),
          ),
        },
        { arrayFormat: 'indices', encoder },
      ),
    );
  for (const [path, terms] of Object.entries(request.include_sort ?? {}))
    param(`include_sort[${encodeURIComponent(path)}]`, list(terms), true);
  for (const [path, limit] of Object.entries(request.include_limit ?? {}))
    param(`include_limit[${encodeURIComponent(path)}]`, String(limit));
  if (request.count !== undefined) param('count', list(request.count), true);
  if (request.sort !== undefined) param('sort', list(request.sort), true);
  if (request.search !== undefined) param('search', request.search);
  if (request.pagination !== undefined && request.pagination !== 'length-aware')
    param('pagination', request.pagination);
  if (request.cursor !== undefined) param('cursor', request.cursor);
  if (request.all) param('all', 'true');
  if (request.format !== undefined) param('format', request.format);
  if (request.per_page !== undefined) param('per_page', String(request.per_page));
  if (request.page !== undefined) param('page', String(request.page));
  return parts.join('&');
}

/** `having[<metric>][<op>]=<value>`: conditions on requested metrics. */
export type HavingOperator = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';

/** The query of `GET <list>/aggregate` (docs/aggregates.md). */
export interface AggregateQuery {
  /** The rows: the list's filters and search. */
  filter?: readonly FilterNode[];
  search?: string;
  /** `count`, `sum:balance`, …; default `count`. */
  metrics?: string | readonly string[];
  /** `status`, `department.name`, `created_at:month`, …; at most one date bucket. */
  group_by?: string | readonly string[];
  /** The IANA time zone of date buckets; default UTC. */
  tz?: string;
  /** With a date bucket: a date (midnight in `tz`) or an instant with Z or an offset. */
  from?: string;
  /** With a date bucket: the end, exclusive. */
  to?: string;
  /** Requested metrics or group keys, `-name` descending. */
  sort?: string | readonly string[];
  limit?: number;
  having?: Readonly<Record<string, Partial<Record<HavingOperator, string | number>>>>;
}

/** An aggregate query → its query string (the filters written as `buildListQuery` writes them). */
export function buildAggregateQuery(query: AggregateQuery): string {
  const parts: string[] = [];
  const filters = buildListQuery({
    ...(query.filter ? { filter: query.filter } : {}),
    ...(query.search !== undefined ? { search: query.search } : {}),
  });
  if (filters) parts.push(filters);
  const list = (value: string | readonly string[]) => (typeof value === 'string' ? value : value.join(','));
  const add = (name: string, value: string | number | readonly string[] | undefined) => {
    if (value === undefined) return;
    const text = typeof value === 'number' ? String(value) : list(value);
    if (text !== '') parts.push(`${name}=${encodeURIComponent(text)}`);
  };
  add('metrics', query.metrics);
  add('group_by', query.group_by);
  add('tz', query.tz);
  add('from', query.from);
  add('to', query.to);
  add('sort', query.sort);
  add('limit', query.limit);
  for (const [metric, conditions] of Object.entries(query.having ?? {}))
    for (const [op, value] of Object.entries(conditions))
      if (value !== undefined)
        parts.push(`having[${encodeURIComponent(metric)}][${op}]=${encodeURIComponent(String(value))}`);
  return parts.join('&');
}
