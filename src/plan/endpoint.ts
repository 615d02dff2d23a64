import { ConfigurationError } from '../errors/configuration-error.js';
import { columnTypes, kinds } from '../kinds/index.js';
import { defaultLimits, type Limits } from '../request/limits.js';
import type { FieldInput, RawValue } from '../request/list-request.js';
import type { Action, AllLimit, EndpointPolicy, TotalStrategy } from '../resource/policy.js';
import type { ResolvedColumn, ResolvedRelation, ResolvedResource } from '../resource/registry.js';
import type { CustomFilterCallback, DefaultFilterValue } from '../resource/types.js';
import {
  type CompiledAggregates,
  type GroupTerm,
  type MetricName,
  type MetricTerm,
  metricNames,
} from './aggregate-plan.js';
import { type BucketUnit, bucketUnits } from './buckets.js';
import type { FieldTarget, SortTerm, SortThrough } from './list-plan.js';
import { relationPath, resolvePath } from './paths.js';

/**
 * A filter whitelist over one resource, what `resolveFilter` reads: an endpoint's (`allowedFilters`)
 * or an include's (`includeConstraints[path].allowedFilters`, over the related resource).
 */
export interface FilterScope {
  readonly resource: ResolvedResource;
  readonly limits: Limits;
  /** `allowedFilters` entries that name one filter exactly. */
  readonly exactFilters: ReadonlySet<string>;
  /** `*` was listed: every visible direct column. */
  readonly allColumns: boolean;
  /** `<owner>.*` entries, by owner (a relation path, or a JSON column path). */
  readonly wildcardOwners: ReadonlySet<string>;
  readonly customFilters: ReadonlyMap<string, CustomFilterCallback>;
  /** The JSON Schema a custom filter declares of its values (`Filter.custom`'s `schema`), by name. */
  readonly customSchemas: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /** The allowed filter names as configured, for error messages. */
  readonly allowedFilterNames: readonly string[];
}

/** What a client may constrain on one include (`EndpointPolicy.includeConstraints`), checked. */
export interface CompiledIncludeConstraint extends FilterScope {
  /** The include path (`posts`, `posts.comments`). */
  readonly path: string;
  /** The to-many relation the path ends with; `resource` is its target. */
  readonly relation: ResolvedRelation;
  readonly allowedSorts: ReadonlySet<string>;
  /** The policy's `maxLimit`: also the limit of a request that gives none. */
  readonly maxLimit: number | undefined;
  /** The largest `include_limit` a request may give: `maxLimit`, or `MAX_INCLUDE_LIMIT`. */
  readonly largestLimit: number;
}

/** The largest `include_limit` where the policy sets no `maxLimit`. */
export const MAX_INCLUDE_LIMIT = 1000;

/** An endpoint policy prepared once at start-up: lookups by name, defaults parsed, limits merged. */
export interface CompiledEndpoint extends FilterScope {
  readonly path: string;
  readonly policy: EndpointPolicy;
  /** Default filters with fixed values. */
  readonly defaultFilters: readonly FieldInput[];
  /** Default filters whose value is a function of the request's context (`defaultsFor`). */
  readonly contextDefaults: readonly ContextDefault[];
  /**
   * What `sort` may name: a column (undefined), a to-one path or a relation count (how it is reached).
   */
  readonly allowedSorts: ReadonlyMap<string, SortThrough | undefined>;
  readonly defaultSort: readonly SortTerm[];
  readonly perPage: { readonly default: number; readonly max: number };
  /** Include paths a client may ask for: each configured path and its prefixes. */
  readonly allowedIncludes: ReadonlySet<string>;
  /**
   * The columns `fields` may name, by owner: `''` for the records, an include path for its related
   * records (`EndpointPolicy.allowedFields`, or every visible column of each).
   */
  readonly allowedFields: ReadonlyMap<string, ReadonlySet<string>>;
  readonly allowedCounts: ReadonlyMap<string, ResolvedRelation>;
  /** What each include path may be constrained by (`include_filter`, `include_sort`, `include_limit`). */
  readonly includeConstraints: ReadonlyMap<string, CompiledIncludeConstraint>;
  /** The columns `search` looks in (strings, maybe through relations). */
  readonly searchTargets: readonly FieldTarget[];
  readonly allowAll: AllLimit | undefined;
  /** Exports' maximum (`allowExport`, else `allowAll`); undefined: no export. */
  readonly allowExport: AllLimit | undefined;
  /** How a length-aware page finds its total (`EndpointPolicy.total`, checked). */
  readonly total: TotalStrategy;
  /** The statement timeout of this endpoint's reads, in ms. */
  readonly timeoutMs: number;
  /** The actions the endpoint serves (`EndpointPolicy.actions`, defaults filled in). */
  readonly actions: ReadonlySet<Action>;
  /** The aggregate route's whitelists (`EndpointPolicy.aggregates`); undefined: no aggregate route. */
  readonly aggregates: CompiledAggregates | undefined;
}

const allActions: readonly Action[] = ['list', 'read', 'create', 'update', 'delete', 'restore'];

/** The declared actions, or the defaults; each checked against what it needs. */
function compileActions(policy: EndpointPolicy, resource: ResolvedResource, where: string): Set<Action> {
  const form = policy.schema?.form !== undefined;
  // A record of a composite key is read, never written, through the service: no write by default.
  const composite = resource.primaryKey === undefined;
  const actions = new Set<Action>(
    policy.actions ?? (form && !composite ? ['list', 'read', 'update'] : ['list', 'read']),
  );
  for (const action of actions) {
    if (!allActions.includes(action))
      throw new ConfigurationError(
        `${where}: unknown action "${action}" (actions: ${allActions.join(', ')}).`,
      );
    if (composite && action !== 'list' && action !== 'read')
      throw new ConfigurationError(
        `${where}: the action "${action}" writes records by their key, and the primary key of "${resource.name}" has several columns (${resource.keyColumns.join(', ')}): such records are listed and read, not written.`,
      );
    if ((action === 'create' || action === 'update') && !form)
      throw new ConfigurationError(
        `${where}: the action "${action}" needs schema.form, which validates the body.`,
      );
    if (action === 'restore' && !resource.softDeleteColumn)
      throw new ConfigurationError(
        `${where}: the action "restore" needs a resource with a softDeleteColumn.`,
      );
  }
  return actions;
}

export interface ContextDefault {
  readonly name: string;
  readonly value: (ctx: unknown) => DefaultFilterValue | undefined;
}

/** The default filters of one request: the fixed ones, and those its context gives a value. */
export function defaultsFor(endpoint: CompiledEndpoint, ctx: unknown): FieldInput[] {
  const fields = [...endpoint.defaultFilters];
  for (const { name, value } of endpoint.contextDefaults) {
    const given = value(ctx);
    if (given !== undefined) fields.push({ name, raw: rawFromDefault(given) });
  }
  return fields;
}

function compileIncludes(resource: ResolvedResource, paths: readonly string[], where: string): Set<string> {
  const allowed = new Set<string>();
  for (const path of paths) {
    const hops = relationPath(resource, path);
    if (!hops)
      throw new ConfigurationError(`${where}: allowedIncludes names unknown relation path "${path}".`);
    let parent = resource;
    for (const hop of hops) {
      // Related records are matched to their parents by this key, so the parent's records must carry it.
      if (parent.columns.get(hop.parentKey)?.hidden !== false)
        throw new ConfigurationError(
          `${where}: include "${path}" needs the visible column "${hop.parentKey}" on "${parent.name}".`,
        );
      parent = hop.target;
    }
    const segments = path.split('.');
    for (let i = 1; i <= segments.length; i++) allowed.add(segments.slice(0, i).join('.'));
  }
  return allowed;
}

/** `allowedFields`, checked: each name a visible column of the records or of an allowed include. */
function compileFields(
  resource: ResolvedResource,
  includes: ReadonlySet<string>,
  names: readonly string[] | undefined,
  where: string,
): Map<string, Set<string>> {
  const owners = new Map<string, ResolvedResource>([['', resource]]);
  for (const path of includes) {
    const hops = relationPath(resource, path) as ResolvedRelation[];
    owners.set(path, (hops[hops.length - 1] as ResolvedRelation).target);
  }
  const allowed = new Map<string, Set<string>>();
  if (names === undefined) {
    for (const [path, owner] of owners)
      allowed.set(path, new Set(owner.visibleColumns.map((column) => column.name)));
    return allowed;
  }
  for (const name of names) {
    const cut = name.lastIndexOf('.');
    const path = cut < 0 ? '' : name.slice(0, cut);
    const column = name.slice(cut + 1);
    const owner = owners.get(path);
    if (!owner)
      throw new ConfigurationError(
        `${where}: allowedFields names "${name}", but "${path}" is not an allowed include.`,
      );
    if (owner.columns.get(column)?.hidden !== false)
      throw new ConfigurationError(
        `${where}: allowedFields names "${name}", which is not a visible column of "${owner.name}".`,
      );
    const set = allowed.get(path) ?? new Set<string>();
    set.add(column);
    allowed.set(path, set);
  }
  return allowed;
}

function compileCounts(
  resource: ResolvedResource,
  names: readonly string[],
  where: string,
): Map<string, ResolvedRelation> {
  const counts = new Map<string, ResolvedRelation>();
  for (const name of names) {
    const relation = resource.relations.get(name);
    if (!relation) throw new ConfigurationError(`${where}: allowedCounts names unknown relation "${name}".`);
    counts.set(name, relation);
  }
  return counts;
}

function compileSearch(resource: ResolvedResource, names: readonly string[], where: string): FieldTarget[] {
  return names.map((name) => {
    const path = resolvePath(resource, name);
    if (!path || path.target.jsonPath || path.column.type !== 'string')
      throw new ConfigurationError(
        `${where}: allowedSearch entry "${name}" is not a string column (or a relation's).`,
      );
    return path.target;
  });
}

function rawFromDefault(value: DefaultFilterValue): RawValue {
  if (typeof value !== 'object') return String(value);
  return Object.fromEntries(
    Object.entries(value).map(([op, v]) => [op, Array.isArray(v) ? v.map(String) : String(v)]),
  );
}

/** `-created_at,name` → sort terms; names `allowed` does not hold are reported through `onError`. */
export function parseSort(
  text: string,
  allowed: ReadonlyMap<string, SortThrough | undefined>,
  onError: (message: string) => void,
): SortTerm[] {
  const terms: SortTerm[] = [];
  for (const written of text.split(',')) {
    // `sort=+score` arrives as " score" (a `+` in a query string is a space): ascending, as meant.
    const part = written.trim().replace(/^\+/, '');
    if (part === '') continue;
    const descending = part.startsWith('-');
    const name = descending ? part.slice(1) : part;
    if (!allowed.has(name)) {
      onError(`Sorting by "${name}" is not allowed.`);
      continue;
    }
    if (terms.some((term) => term.name === name)) continue;
    const through = allowed.get(name);
    terms.push({ name, direction: descending ? 'desc' : 'asc', ...(through && { through }) });
  }
  return terms;
}

const COUNT_SUFFIX = '_count';

/** The kinds no sort applies to, as messages name them. */
const unorderedKinds = columnTypes.filter((type) => !kinds[type].ordered).join(', ');

/**
 * What a sort name reaches, or why it cannot be sorted by: a visible column of an ordered kind; a
 * relation's count the endpoint allows (`<relation>_count`); a column of an ordered kind at the end of
 * relations that each match at most one record — joined on the related table's primary key, so a
 * record is never repeated (a `hasOne` whose foreign key is not the related key may match several).
 */
function sortTarget(
  resource: ResolvedResource,
  name: string,
  counts: ReadonlyMap<string, ResolvedRelation>,
): { through: SortThrough | undefined } | string {
  const column = resource.columns.get(name);
  if (column && !column.hidden)
    return kinds[column.type].ordered
      ? { through: undefined }
      : `the column "${name}" is of a kind no sort applies to (${unorderedKinds})`;
  if (name.endsWith(COUNT_SUFFIX) && resource.relations.has(name.slice(0, -COUNT_SUFFIX.length))) {
    const relation = counts.get(name.slice(0, -COUNT_SUFFIX.length));
    return relation
      ? { through: { kind: 'count', relation } }
      : `"${name}" counts a relation that is not in allowedCounts`;
  }
  const path = name.includes('.') ? resolvePath(resource, name) : undefined;
  if (!path || path.target.hops.length === 0 || path.target.jsonPath)
    return `"${name}" is neither a visible column, a relation's column, nor an allowed <relation>_count`;
  const many = path.target.hops.find((hop) => hop.pivot || hop.childKey !== hop.target.primaryKey);
  if (many)
    return `the relation "${many.name}" may match several ${many.target.name} records per record (only relations joined on the related primary key, like belongsTo, can be sorted through)`;
  if (!kinds[path.column.type].ordered)
    return `the column "${name}" is of a kind no sort applies to (${unorderedKinds})`;
  return { through: { kind: 'path', hops: path.target.hops, column: path.column } };
}

/** `allowedSorts` checked against the definitions: each name and how its value is reached. */
function compileSorts(
  resource: ResolvedResource,
  names: readonly string[],
  counts: ReadonlyMap<string, ResolvedRelation>,
  where: string,
): Map<string, SortThrough | undefined> {
  const sorts = new Map<string, SortThrough | undefined>();
  for (const name of names) {
    const target = sortTarget(resource, name, counts);
    if (typeof target === 'string') throw new ConfigurationError(`${where}: allowedSorts: ${target}.`);
    sorts.set(name, target.through);
  }
  return sorts;
}

/** The kinds `sum` and `avg` apply to: exact numbers (a decimal with its declared scale). */
const summable = new Set(['integer', 'bigint', 'decimal']);

/**
 * `allowedAggregates` and `allowedGroupBy` checked against the definitions: each metric on a visible
 * column of a kind it applies to, each group key a visible column, a to-one path (the rule of relation
 * sorts, `sortTarget`) or a date bucket of a date or datetime column.
 */
function compileAggregates(
  resource: ResolvedResource,
  policy: EndpointPolicy['aggregates'],
  where: string,
): CompiledAggregates | undefined {
  if (!policy) return undefined;
  const fail = (message: string): never => {
    throw new ConfigurationError(`${where}: aggregates: ${message}.`);
  };
  const metrics = new Map<string, MetricTerm>();
  for (const name of policy.allowedAggregates ?? []) {
    if (name === 'count') {
      metrics.set(name, { name, fn: 'count' });
      continue;
    }
    const cut = name.indexOf(':');
    const fn = name.slice(0, cut) as MetricName;
    const columnName = name.slice(cut + 1);
    if (cut < 0 || fn === 'count' || !metricNames.includes(fn))
      fail(
        `allowedAggregates names "${name}": write count or <metric>:<column> with a metric among ${metricNames.slice(1).join(', ')}`,
      );
    const column = resource.columns.get(columnName);
    if (!column || column.hidden)
      return fail(
        `allowedAggregates names "${name}", but "${columnName}" is not a visible column of "${resource.name}"`,
      );
    if ((fn === 'sum' || fn === 'avg') && !summable.has(column.type))
      fail(`"${name}": ${fn} applies to integer, bigint and decimal columns, not to a ${column.type} column`);
    if ((fn === 'sum' || fn === 'avg') && column.type === 'decimal' && column.scale === undefined)
      fail(
        `"${name}": a decimal column's ${fn} is answered exactly at its scale: declare "${columnName}"'s scale`,
      );
    if ((fn === 'min' || fn === 'max' || fn === 'count_distinct') && !kinds[column.type].ordered)
      fail(`"${name}": ${fn} applies to columns of an ordered kind, not to a ${column.type} column`);
    metrics.set(name, { name, fn, column });
  }
  const groups = new Map<string, GroupTerm>();
  for (const name of policy.allowedGroupBy ?? []) {
    const cut = name.lastIndexOf(':');
    if (cut >= 0) {
      const unit = name.slice(cut + 1) as BucketUnit;
      const column = resource.columns.get(name.slice(0, cut));
      if (!bucketUnits.includes(unit))
        fail(`allowedGroupBy names "${name}": a date bucket's unit is one of ${bucketUnits.join(', ')}`);
      if (!column || column.hidden || (column.type !== 'date' && column.type !== 'datetime'))
        fail(
          `allowedGroupBy names "${name}": date buckets apply to visible date and datetime columns of "${resource.name}"`,
        );
      groups.set(name, { kind: 'bucket', name, column: column as ResolvedColumn, unit });
      continue;
    }
    const target = sortTarget(resource, name, new Map());
    if (typeof target === 'string') return fail(`allowedGroupBy: ${target}`);
    const through = target.through;
    if (through?.kind === 'path')
      groups.set(name, { kind: 'path', name, hops: through.hops, column: through.column });
    else groups.set(name, { kind: 'column', name, column: resource.columns.get(name) as ResolvedColumn });
  }
  const limit = (value: number | undefined, key: string): number => {
    if (value === undefined) return 1000;
    if (!(Number.isInteger(value) && value >= 1)) fail(`${key} must be a whole number, at least 1`);
    return value;
  };
  return {
    metrics,
    groups,
    maxGroups: limit(policy.maxGroups, 'maxGroups'),
    maxBuckets: limit(policy.maxBuckets, 'maxBuckets'),
  };
}

function compileAllowAll(limit: AllLimit | undefined, where: string, key: string): AllLimit | undefined {
  if (limit !== undefined && limit !== 'unlimited' && !(Number.isInteger(limit) && limit >= 0))
    throw new ConfigurationError(`${where}: ${key} takes a whole number or 'unlimited'.`);
  return limit;
}

function compileTotal(total: unknown, where: string): TotalStrategy {
  if (total === undefined) return 'exact';
  if (total === 'exact' || total === 'estimated' || total === 'none') return total;
  if (typeof total === 'object' && total !== null && Object.keys(total).join() === 'exactUpTo') {
    const { exactUpTo } = total as { exactUpTo: unknown };
    if (Number.isSafeInteger(exactUpTo) && (exactUpTo as number) >= 1)
      return { exactUpTo: exactUpTo as number };
  }
  throw new ConfigurationError(
    `${where}: total takes 'exact', 'estimated', 'none' or { exactUpTo: N } with N a whole number, at least 1.`,
  );
}

function compileTimeout(ms: number | undefined, where: string): number {
  if (ms === undefined) return 5000;
  if (!(Number.isInteger(ms) && ms >= 1))
    throw new ConfigurationError(`${where}: timeoutMs must be a whole number of milliseconds, at least 1.`);
  return ms;
}

/** An `allowedFilters` list, checked against `resource`'s definitions. */
function compileFilterWhitelist(
  resource: ResolvedResource,
  entries: readonly (
    | string
    | { name: string; callback: CustomFilterCallback; schema?: Readonly<Record<string, unknown>> }
  )[],
  where: string,
  setting: string,
): Omit<FilterScope, 'resource' | 'limits'> {
  const exactFilters = new Set<string>();
  const wildcardOwners = new Set<string>();
  const customFilters = new Map<string, CustomFilterCallback>();
  const customSchemas = new Map<string, Readonly<Record<string, unknown>>>();
  let allColumns = false;
  const allowedFilterNames: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string') {
      customFilters.set(entry.name, entry.callback);
      if (entry.schema) customSchemas.set(entry.name, entry.schema);
      allowedFilterNames.push(entry.name);
      continue;
    }
    allowedFilterNames.push(entry);
    if (entry === '*') allColumns = true;
    else if (entry.endsWith('.*')) {
      const owner = entry.slice(0, -2);
      if (!relationPath(resource, owner) && resolvePath(resource, owner)?.column.type !== 'json')
        throw new ConfigurationError(
          `${where}: ${setting} entry "${entry}" is neither a relation nor a JSON column.`,
        );
      wildcardOwners.add(owner);
    } else {
      const known =
        (entry === 'trashed' && resource.softDeleteColumn !== undefined) ||
        resource.scopes.has(entry) ||
        resolvePath(resource, entry) !== undefined;
      if (!known) throw new ConfigurationError(`${where}: ${setting} names unknown filter "${entry}".`);
      exactFilters.add(entry);
    }
  }
  return { exactFilters, allColumns, wildcardOwners, customFilters, customSchemas, allowedFilterNames };
}

/** A visible column of `resource` a sort can order by. */
const sortable = (resource: ResolvedResource, column: string): boolean => {
  const found = resource.columns.get(column);
  return found !== undefined && !found.hidden && kinds[found.type].ordered;
};

/**
 * `includeConstraints`, checked: each path an allowed include ending with a to-many relation, each
 * filter and sort a name of the related resource, `maxLimit` a whole number, and no column of the
 * parent named like the `<relation>_total` a limited include adds.
 */
function compileIncludeConstraints(
  resource: ResolvedResource,
  includes: ReadonlySet<string>,
  policy: EndpointPolicy,
  limits: Limits,
  where: string,
): Map<string, CompiledIncludeConstraint> {
  const compiled = new Map<string, CompiledIncludeConstraint>();
  for (const [path, constraint] of Object.entries(policy.includeConstraints ?? {})) {
    const at = `${where}: includeConstraints["${path}"]`;
    const hops = includes.has(path) ? relationPath(resource, path) : undefined;
    if (!hops)
      throw new ConfigurationError(
        `${at}: "${path}" is not an allowed include (allowedIncludes: ${[...includes].join(', ') || 'none'}).`,
      );
    const relation = hops[hops.length - 1] as ResolvedRelation;
    const parent = hops.length > 1 ? (hops[hops.length - 2] as ResolvedRelation).target : resource;
    if (relation.kind !== 'hasMany' && relation.kind !== 'belongsToMany')
      throw new ConfigurationError(
        `${at}: "${relation.name}" is a ${relation.kind} relation; only a to-many relation (hasMany, belongsToMany) has a list to filter, sort or limit.`,
      );
    const total = `${relation.name}_total`;
    if (parent.columns.has(total))
      throw new ConfigurationError(
        `${at}: "${parent.name}" has a column "${total}", the name a limited include of "${relation.name}" answers its total under.`,
      );
    const target = relation.target;
    const entries = constraint.allowedFilters ?? [];
    for (const entry of entries as unknown[])
      if (typeof entry !== 'string' || entry === 'trashed')
        throw new ConfigurationError(
          `${at}: allowedFilters takes names of columns, relations and scopes of "${target.name}"${entry === 'trashed' ? ' (not trashed: soft-deleted related records are never included)' : ''}.`,
        );
    const filters = compileFilterWhitelist(target, entries, at, 'allowedFilters');
    for (const column of constraint.allowedSorts ?? [])
      if (!sortable(target, column))
        throw new ConfigurationError(
          `${at}: allowedSorts names unknown (or unordered: ${unorderedKinds}) column "${column}" of "${target.name}".`,
        );
    const { maxLimit } = constraint;
    if (maxLimit !== undefined && !(Number.isSafeInteger(maxLimit) && maxLimit >= 1))
      throw new ConfigurationError(`${at}: maxLimit must be a whole number, at least 1.`);
    compiled.set(path, {
      path,
      relation,
      resource: target,
      limits,
      ...filters,
      allowedSorts: new Set(constraint.allowedSorts ?? []),
      maxLimit,
      largestLimit: maxLimit ?? MAX_INCLUDE_LIMIT,
    });
  }
  return compiled;
}

export function compileEndpoint(
  policy: EndpointPolicy,
  resources: ReadonlyMap<string, ResolvedResource>,
  serviceLimits: Partial<Limits> | undefined,
): CompiledEndpoint {
  const resource = resources.get(policy.resource);
  const where = `Endpoint for "${policy.resource}"`;
  if (!resource) throw new ConfigurationError(`${where}: unknown resource.`);
  const filters = compileFilterWhitelist(resource, policy.allowedFilters ?? [], where, 'allowedFilters');
  const allowedCounts = compileCounts(resource, policy.allowedCounts ?? [], where);
  const allowedSorts = compileSorts(resource, policy.allowedSorts ?? [], allowedCounts, where);
  // The default order may use any visible column of an ordered kind, allowed to clients or not.
  const ordered = new Map(allowedSorts);
  for (const column of resource.visibleColumns)
    if (kinds[column.type].ordered) ordered.set(column.name, undefined);
  const defaultSort = parseSort(
    policy.defaultSort ?? resource.keyColumns.map((key) => `-${key}`).join(','),
    ordered,
    (message) => {
      throw new ConfigurationError(`${where}: defaultSort: ${message}`);
    },
  );
  const perPage = { default: policy.perPage?.default ?? 15, max: policy.perPage?.max ?? 100 };
  if (!(Number.isInteger(perPage.default) && perPage.default >= 1 && perPage.default <= perPage.max))
    throw new ConfigurationError(
      `${where}: perPage.default must be a whole number between 1 and perPage.max.`,
    );
  const includes = compileIncludes(resource, policy.allowedIncludes ?? [], where);
  const limits = { ...defaultLimits, ...serviceLimits };
  return {
    path: policy.path ?? resource.name,
    resource,
    policy,
    limits,
    ...filters,
    defaultFilters: Object.entries(policy.defaultFilters ?? {}).flatMap(([name, value]) =>
      typeof value === 'function' ? [] : [{ name, raw: rawFromDefault(value) }],
    ),
    contextDefaults: Object.entries(policy.defaultFilters ?? {}).flatMap(([name, value]) =>
      typeof value === 'function' ? [{ name, value }] : [],
    ),
    allowedSorts,
    defaultSort,
    perPage,
    allowedIncludes: includes,
    allowedFields: compileFields(resource, includes, policy.allowedFields, where),
    allowedCounts,
    includeConstraints: compileIncludeConstraints(resource, includes, policy, limits, where),
    searchTargets: compileSearch(resource, policy.allowedSearch ?? [], where),
    allowAll: compileAllowAll(policy.allowAll, where, 'allowAll'),
    allowExport: compileAllowAll(policy.allowExport ?? policy.allowAll, where, 'allowExport'),
    total: compileTotal(policy.total, where),
    timeoutMs: compileTimeout(policy.timeoutMs, where),
    actions: compileActions(policy, resource, where),
    aggregates: compileAggregates(resource, policy.aggregates, where),
  };
}
