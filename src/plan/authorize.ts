import { ConfigurationError } from '../errors/configuration-error.js';
import { ErrorBag } from '../errors/error-bag.js';
import { coerceBoolean } from '../kinds/index.js';
import {
  type ClauseInput,
  type ExportFormat,
  exportFormats,
  type FieldInput,
  type ListRequest,
} from '../request/list-request.js';
import type { ResolvedRelation } from '../resource/registry.js';
import { checkCursorValues, decodeCursor } from './cursor.js';
import {
  type CompiledEndpoint,
  type CompiledIncludeConstraint,
  type FilterScope,
  parseSort,
} from './endpoint.js';
import { buildConditions, notAllowedMessage, resolveFilter } from './filters.js';
import type {
  FilterNode,
  IncludeConstraint,
  IncludeNode,
  ListPlan,
  PageMode,
  SortTerm,
} from './list-plan.js';
import { relationPath } from './paths.js';

const MAX_PAGE = 1_000_000_000;
const MAX_SEARCH_LENGTH = 200;

interface Scope {
  withTrashed: boolean;
}

/**
 * ListRequest × endpoint policy → ListPlan, or undefined with every problem added to `errors`.
 * `defaultFilters`: this request's defaults (`defaultsFor`, when some depend on the context).
 * `accepted`: the export format the request's `Accept` header chose, which `format=` overrides.
 */
export function authorize(
  request: ListRequest,
  endpoint: CompiledEndpoint,
  errors: ErrorBag,
  defaultFilters: readonly FieldInput[] = endpoint.defaultFilters,
  accepted?: ExportFormat,
): ListPlan | undefined {
  const state: Scope = { withTrashed: false };
  const where = clause(endpoint, request.filter, errors, state, 0);
  const defaults = defaultFilters.filter((field) => !request.mentioned.has(field.name));
  if (defaults.length > 0)
    where.push(...clause(endpoint, { fields: defaults, groups: [] }, errors, state, 0));
  const search = searchNode(endpoint, request.params.search, errors);
  if (search) where.push(search);

  const sort = sortTerms(endpoint, request.params.sort, errors);
  const format = exportFormat(request.params.format, accepted, errors);
  const mode = format
    ? exportMode(endpoint, request.params, format, errors)
    : pageMode(endpoint, request.params, sort, errors);
  const includes = includeTree(endpoint, request.params.include, errors);
  constrainIncludes(endpoint, request.includeConstraints, includes, errors);
  const counts = countList(endpoint, request.params.count, errors);
  const { fields, columns } = fieldSets(
    endpoint,
    request.fields,
    includes,
    continuesFrom(mode) ? sort : [],
    errors,
  );
  if (!errors.isEmpty || !mode) return undefined;
  return {
    resource: endpoint.resource,
    where,
    withTrashed: state.withTrashed,
    sort,
    mode,
    includes,
    counts,
    fields,
    ...(columns && { columns }),
    ...(format && { export: format }),
  };
}

type Params = ListRequest['params'];

/** `format=` (which wins), else the format `Accept` chose; undefined: the JSON list. */
function exportFormat(
  text: string | undefined,
  accepted: ExportFormat | undefined,
  errors: ErrorBag,
): ExportFormat | undefined {
  if (text === undefined || text === '') return accepted;
  if ((exportFormats as readonly string[]).includes(text)) return text as ExportFormat;
  errors.add('format', `The format parameter takes ${exportFormats.join(' or ')} (absent: the JSON list).`);
  return undefined;
}

/**
 * An export answers every record of the request, as `all=true` does, under `allowExport` (default
 * `allowAll`): it has no pages, so a paging parameter beside it is a mistake rather than something to ignore.
 */
function exportMode(
  endpoint: CompiledEndpoint,
  params: Params,
  format: ExportFormat,
  errors: ErrorBag,
): PageMode | undefined {
  if (params.all !== undefined && params.all !== '') {
    const all = coerceBoolean(params.all);
    if (!all.ok || !all.value)
      errors.add('all', `An export (format=${format}) answers every record: all can only be true beside it.`);
  }
  for (const param of ['page', 'per_page', 'pagination', 'cursor'] as const)
    if (params[param])
      errors.add(
        param,
        `The ${param} parameter cannot be combined with an export (format=${format}): it has no pages.`,
      );
  if (endpoint.allowExport === undefined)
    return void errors.add(
      'format',
      `Exports (format=${format}) answer every record, as all=true, which is not enabled for this endpoint.`,
    );
  return { kind: 'all', max: endpoint.allowExport };
}

function pageMode(
  endpoint: CompiledEndpoint,
  params: Params,
  sort: SortTerm[],
  errors: ErrorBag,
): PageMode | undefined {
  const all = params.all === undefined || params.all === '' ? undefined : coerceBoolean(params.all);
  if (all && !all.ok) errors.add('all', 'The all parameter takes true, false, 1 or 0.');
  if (all?.ok && all.value) {
    if (endpoint.allowAll === undefined) errors.add('all', 'all=true is not enabled for this endpoint.');
    for (const param of ['page', 'pagination', 'cursor'] as const)
      if (params[param]) errors.add(param, `The ${param} parameter cannot be combined with all=true.`);
    // per_page at its documented default means what its absence means (JSON Schema's `default`).
    if (params.per_page && params.per_page !== String(endpoint.perPage.default))
      errors.add(
        'per_page',
        `The per_page parameter cannot be combined with all=true (only its default, ${endpoint.perPage.default}, is accepted there).`,
      );
    return endpoint.allowAll === undefined ? undefined : { kind: 'all', max: endpoint.allowAll };
  }
  const perPage = wholeNumber(
    params.per_page,
    'per_page',
    endpoint.perPage.default,
    endpoint.perPage.max,
    errors,
  );
  const pagination = params.pagination ?? '';
  if (pagination === 'cursor') {
    if (params.page)
      errors.add('page', 'The page parameter is not used with pagination=cursor: follow next_cursor.');
    if (!params.cursor) return { kind: 'cursor', perPage, cursor: undefined };
    const cursor = decodeCursor(params.cursor, sort);
    const problem = typeof cursor === 'string' ? cursor : checkCursorValues(cursor, sort, endpoint.resource);
    if (problem !== undefined || typeof cursor === 'string') return void errors.add('cursor', problem ?? '');
    return { kind: 'cursor', perPage, cursor };
  }
  if (params.cursor) errors.add('cursor', 'The cursor parameter is only used with pagination=cursor.');
  const page = wholeNumber(params.page, 'page', 1, MAX_PAGE, errors);
  if (pagination === 'simple') return { kind: 'simple', page, perPage };
  if (pagination !== '')
    errors.add('pagination', 'The pagination parameter takes simple or cursor (absent: length-aware).');
  return { kind: 'length-aware', page, perPage };
}

function commaList(text: string | undefined): string[] {
  return (text ?? '').split(',').filter((item) => item !== '');
}

type MutableInclude = {
  relation: ResolvedRelation;
  children: MutableInclude[];
  path: string;
  constraint?: IncludeConstraint;
};

function includeTree(endpoint: CompiledEndpoint, text: string | undefined, errors: ErrorBag): IncludeNode[] {
  type Node = MutableInclude;
  const roots: Node[] = [];
  for (const path of commaList(text)) {
    const hops = endpoint.allowedIncludes.has(path) ? relationPath(endpoint.resource, path) : undefined;
    if (!hops) {
      errors.add(
        'include',
        `The relation "${path}" cannot be included. Allowed includes: ${[...endpoint.allowedIncludes].join(', ') || 'none'}.`,
      );
      continue;
    }
    let level = roots;
    let at = '';
    for (const relation of hops) {
      at = at ? `${at}.${relation.name}` : relation.name;
      let node = level.find((candidate) => candidate.relation === relation);
      if (!node) {
        node = { relation, children: [], path: at };
        level.push(node);
      }
      level = node.children;
    }
  }
  return roots;
}

/** Every include of a tree, by path. */
function includePaths(nodes: readonly IncludeNode[], into = new Map<string, IncludeNode>()) {
  for (const node of nodes) {
    into.set(node.path, node);
    includePaths(node.children, into);
  }
  return into;
}

/**
 * `include_filter[<path>]…`, `include_sort[<path>]`, `include_limit[<path>]` → each include's
 * constraint, set on its node; the policy's `maxLimit` limits an include the request does not limit.
 * A constraint on a path this request does not include, or one the policy does not allow, is a 422
 * keyed by its parameter.
 */
function constrainIncludes(
  endpoint: CompiledEndpoint,
  requested: ListRequest['includeConstraints'],
  includes: readonly IncludeNode[],
  errors: ErrorBag,
): void {
  const included = includePaths(includes) as Map<string, MutableInclude>;
  const constrainable = [...endpoint.includeConstraints.keys()].join(', ') || 'none';
  for (const [path, input] of Object.entries(requested)) {
    const given = (['filter', 'sort', 'limit'] as const).filter((part) => input[part] !== undefined);
    const keyOf = (part: (typeof given)[number]) => `include_${part}.${path}`;
    const allowed = endpoint.includeConstraints.get(path);
    const node = included.get(path);
    if (!allowed || !node) {
      for (const part of given)
        errors.add(
          keyOf(part),
          allowed
            ? `include_${part}[${path}] constrains an include this request does not ask for (add include=${path}).`
            : `The include "${path}" cannot be filtered, sorted or limited on this endpoint. Includes that can: ${constrainable}.`,
        );
      continue;
    }
    const where = input.filter
      ? clause(allowed, input.filter, errors, { withTrashed: false }, 0, keyOf('filter'))
      : [];
    const sort = input.sort === undefined ? [] : includeSort(allowed, input.sort, keyOf('sort'), errors);
    const limit =
      input.limit === undefined
        ? allowed.maxLimit
        : wholeNumber(input.limit, keyOf('limit'), 1, allowed.largestLimit, errors, `include_limit[${path}]`);
    node.constraint = { where, sort, ...(limit !== undefined && { limit }) };
  }
  // A maxLimit applies to an include the request did not constrain at all.
  for (const [path, allowed] of endpoint.includeConstraints) {
    const node = included.get(path);
    if (node && !node.constraint && allowed.maxLimit !== undefined)
      node.constraint = { where: [], sort: [], limit: allowed.maxLimit };
  }
}

/**
 * `include_sort[<path>]=-a,b` → sort terms on the related resource, then its key columns in the last
 * term's direction: the order is total, and one index on (link, sort columns, key) serves it.
 */
function includeSort(
  allowed: CompiledIncludeConstraint,
  text: string,
  key: string,
  errors: ErrorBag,
): SortTerm[] {
  const terms = parseSort(
    text,
    // Columns only: a related record's order has no relation sorts or counts of its own.
    new Map([...allowed.allowedSorts].map((name) => [name, undefined])),
    (message) =>
      errors.add(
        key,
        `${message} Allowed sorts of ${allowed.path}: ${[...allowed.allowedSorts].join(', ') || 'none'}; prefix with - for descending.`,
      ),
  );
  const direction = terms.at(-1)?.direction ?? 'asc';
  for (const column of allowed.resource.keyColumns)
    if (!terms.some((term) => term.name === column)) terms.push({ name: column, direction });
  return terms;
}

/**
 * Whether the answer continues after its last row (a cursor page, an unlimited stream's next batch), so
 * that the statement must read the sort's values even where no field answers them. A numbered page, a
 * capped `all` and an export under its maximum are read at once: the columns would cost for nothing
 * (a timestamp parsed per row, a sixth of a SQLite page of three fields).
 */
const continuesFrom = (mode: PageMode | undefined): boolean =>
  mode?.kind === 'cursor' || (mode?.kind === 'all' && mode.max === 'unlimited');

/**
 * `fields[<owner>]=a,b` → the columns answered by owner (the key columns always among them), and the
 * columns the records' statement must read for them: also the sort's when the answer continues from
 * them (`continuesFrom`), and the keys the includes are matched by. Each name must be allowed (`allowedFields`); an owner must
 * be the resource (or a bare `fields`) or an include of this request.
 */
function fieldSets(
  endpoint: CompiledEndpoint,
  requested: Readonly<Record<string, string>>,
  includes: readonly IncludeNode[],
  sort: readonly SortTerm[],
  errors: ErrorBag,
): { fields: Map<string, readonly string[]>; columns: readonly string[] | undefined } {
  const fields = new Map<string, readonly string[]>();
  const included = includePaths(includes);
  const resourceName = endpoint.resource.name;
  for (const [written, text] of Object.entries(requested)) {
    const owner = written === resourceName ? '' : written;
    const key = `fields.${written === '' ? resourceName : written}`;
    const node = included.get(owner);
    if (owner !== '' && !node) {
      errors.add(
        key,
        `fields[${written}] names neither this resource (${resourceName}) nor a relation this request includes${endpoint.allowedIncludes.has(owner) ? ` (add include=${owner})` : ''}.`,
      );
      continue;
    }
    if (fields.has(owner)) {
      errors.add(key, `The fields of ${written || resourceName} are given twice.`);
      continue;
    }
    const allowed = endpoint.allowedFields.get(owner) ?? new Set<string>();
    const names = commaList(text);
    const refused = names.filter((name) => !allowed.has(name));
    if (refused.length > 0 || names.length === 0) {
      errors.add(
        key,
        `${refused.length > 0 ? `The field${refused.length > 1 ? 's' : ''} ${refused.map((name) => `"${name}"`).join(', ')} cannot be selected` : 'No field is named'}. Allowed fields: ${[...allowed].join(', ') || 'none'}.`,
      );
      continue;
    }
    const target = owner === '' ? endpoint.resource : (node as IncludeNode).relation.target;
    fields.set(owner, [...new Set([...target.keyColumns, ...names])]);
  }
  const answered = fields.get('');
  const columns = answered && [
    ...new Set([
      ...answered,
      // A relation's value is read by the statement's joins or sub-query, not as a column.
      ...sort.flatMap((term) => (term.through ? [] : [term.name])),
      ...includes.map((node) => node.relation.parentKey),
    ]),
  ];
  return { fields, columns };
}

function countList(
  endpoint: CompiledEndpoint,
  text: string | undefined,
  errors: ErrorBag,
): ResolvedRelation[] {
  const counts: ResolvedRelation[] = [];
  for (const name of commaList(text)) {
    const relation = endpoint.allowedCounts.get(name);
    if (!relation)
      errors.add(
        'count',
        `The relation "${name}" cannot be counted. Allowed counts: ${[...endpoint.allowedCounts.keys()].join(', ') || 'none'}.`,
      );
    else if (!counts.includes(relation)) counts.push(relation);
  }
  return counts;
}

/** `search=<term>`: any allowed column contains the term (textual-operator rules, escaped). */
function searchNode(
  endpoint: CompiledEndpoint,
  term: string | undefined,
  errors: ErrorBag,
): FilterNode | undefined {
  if (term === undefined || term === '') return undefined;
  if (endpoint.searchTargets.length === 0)
    return void errors.add('search', 'Search is not enabled for this endpoint.');
  if (term.length > MAX_SEARCH_LENGTH)
    return void errors.add(
      'search',
      `The search term is ${term.length} characters long: the limit is ${MAX_SEARCH_LENGTH}.`,
    );
  if (term.includes('\u0000')) return void errors.add('search', 'The search term contains a NUL character.');
  return {
    kind: 'or',
    children: endpoint.searchTargets.map((target) => ({
      kind: 'field',
      target,
      conditions: [{ op: 'contains', value: term }],
    })),
  };
}

function wholeNumber(
  text: string | undefined,
  key: string,
  fallback: number,
  max: number,
  errors: ErrorBag,
  /** How the message names the parameter (default: its key). */
  name = key,
): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) {
    errors.add(key, `The ${name} parameter must be a whole number between 1 and ${max}.`);
    return fallback;
  }
  return value;
}

function sortTerms(endpoint: CompiledEndpoint, text: string | undefined, errors: ErrorBag): SortTerm[] {
  const requested =
    text === undefined || text === ''
      ? [...endpoint.defaultSort]
      : parseSort(text, endpoint.allowedSorts, (message) =>
          errors.add(
            'sort',
            `${message} Allowed sorts: ${[...endpoint.allowedSorts.keys()].join(', ') || 'none'}; prefix with - for descending.`,
          ),
        );
  // The primary key as the last terms makes the order total, so pages never repeat or skip rows.
  for (const key of endpoint.resource.keyColumns)
    if (!requested.some((term) => term.name === key)) requested.push({ name: key, direction: 'desc' });
  return requested;
}

function clause(
  endpoint: FilterScope,
  input: ClauseInput,
  errors: ErrorBag,
  state: Scope,
  depth: number,
  /** The key problems are reported under, before the filter's name. */
  prefix = 'filter',
): FilterNode[] {
  const nodes: FilterNode[] = [];
  for (const field of input.fields) {
    const node = fieldNode(endpoint, field, errors, state, depth, prefix);
    if (node) nodes.push(node);
  }
  for (const group of input.groups) {
    const children = group.members
      .map((member) => clause(endpoint, member, errors, state, depth + 1, prefix))
      .filter((members) => members.length > 0)
      .map(
        (members): FilterNode =>
          members.length === 1 ? (members[0] as FilterNode) : { kind: 'and', children: members },
      );
    if (children.length > 0) nodes.push({ kind: group.kind, children });
  }
  return nodes;
}

function fieldNode(
  endpoint: FilterScope,
  field: FieldInput,
  errors: ErrorBag,
  state: Scope,
  depth: number,
  prefix: string,
): FilterNode | undefined {
  const key = `${prefix}.${field.name}`;
  const report = (message: string) => errors.add(key, message);
  const resolution = resolveFilter(endpoint, field.name);
  if (!resolution) return void report(notAllowedMessage(endpoint, field.name));
  switch (resolution.kind) {
    case 'custom':
      return { kind: 'custom', name: field.name, callback: resolution.callback, value: field.raw };
    case 'trashed':
    case 'scope': {
      const flag = typeof field.raw === 'string' ? coerceBoolean(field.raw) : undefined;
      if (!flag?.ok) return void report(`The filter "${field.name}" takes true, false, 1 or 0.`);
      if (resolution.kind === 'scope') return { kind: 'scope', scope: resolution.scope, value: flag.value };
      if (depth > 0)
        return void report(
          'The trashed filter applies to the whole request; it cannot be used inside a group.',
        );
      state.withTrashed = flag.value;
      return undefined;
    }
    case 'field': {
      const conditions = buildConditions(endpoint, field, resolution, report);
      return conditions.length > 0 ? { kind: 'field', target: resolution.target, conditions } : undefined;
    }
  }
}

/** Checks an endpoint's default filters at start-up, exactly as a client's would be checked. */
export function checkDefaultFilters(endpoint: CompiledEndpoint): void {
  const errors = new ErrorBag();
  clause(endpoint, { fields: endpoint.defaultFilters, groups: [] }, errors, { withTrashed: false }, 0);
  // A default whose value comes from the context is checked per request; its name can be checked now.
  for (const { name } of endpoint.contextDefaults)
    if (!resolveFilter(endpoint, name)) errors.add(`filter.${name}`, `The filter "${name}" is not allowed.`);
  if (!errors.isEmpty)
    throw new ConfigurationError(
      `Endpoint "${endpoint.path}": invalid defaultFilters: ${Object.values(errors.toEnvelope().errors).flat().join(' ')}`,
    );
}
