import type { FieldInput, RawValue } from '../request/list-request.js';
import { defaultLimits, type Limits } from '../request/limits.js';
import type { DefaultFilterValue, EndpointPolicy } from '../resource/policy.js';
import { ConfigurationError, type ResolvedResource } from '../resource/registry.js';
import type { CustomFilterCallback } from '../resource/types.js';
import type { SortTerm } from './list-plan.js';

/** An endpoint policy prepared once at start-up: lookups by name, defaults parsed, limits merged. */
export interface CompiledEndpoint {
  readonly path: string;
  readonly resource: ResolvedResource;
  readonly policy: EndpointPolicy;
  readonly limits: Limits;
  /** `allowedFilters` entries that name one filter exactly. */
  readonly exactFilters: ReadonlySet<string>;
  /** `*` was listed: every visible direct column. */
  readonly allColumns: boolean;
  /** `<owner>.*` entries, by owner (a relation path, or a JSON column path). */
  readonly wildcardOwners: ReadonlySet<string>;
  readonly customFilters: ReadonlyMap<string, CustomFilterCallback>;
  /** The allowed filter names as configured, for error messages. */
  readonly allowedFilterNames: readonly string[];
  readonly defaultFilters: readonly FieldInput[];
  readonly allowedSorts: ReadonlySet<string>;
  readonly defaultSort: readonly SortTerm[];
  readonly perPage: { readonly default: number; readonly max: number };
}

function rawFromDefault(value: DefaultFilterValue): RawValue {
  if (typeof value !== 'object') return String(value);
  return Object.fromEntries(
    Object.entries(value).map(([op, v]) => [op, Array.isArray(v) ? v.map(String) : String(v)]),
  );
}

/** `-created_at,name` → sort terms; unknown names are reported through `onUnknown`. */
export function parseSort(text: string, isAllowed: (column: string) => boolean, onError: (message: string) => void): SortTerm[] {
  const terms: SortTerm[] = [];
  for (const part of text.split(',')) {
    if (part === '') continue;
    const descending = part.startsWith('-');
    const column = descending ? part.slice(1) : part;
    if (!isAllowed(column)) {
      onError(`Sorting by "${column}" is not allowed.`);
      continue;
    }
    if (!terms.some((term) => term.column === column)) terms.push({ column, direction: descending ? 'desc' : 'asc' });
  }
  return terms;
}

export function compileEndpoint(
  policy: EndpointPolicy,
  resources: ReadonlyMap<string, ResolvedResource>,
  serviceLimits: Partial<Limits> | undefined,
): CompiledEndpoint {
  const resource = resources.get(policy.resource);
  const where = `Endpoint for "${policy.resource}"`;
  if (!resource) throw new ConfigurationError(`${where}: unknown resource.`);
  const exactFilters = new Set<string>();
  const wildcardOwners = new Set<string>();
  const customFilters = new Map<string, CustomFilterCallback>();
  let allColumns = false;
  const allowedFilterNames: string[] = [];
  for (const entry of policy.allowedFilters ?? []) {
    if (typeof entry !== 'string') {
      customFilters.set(entry.name, entry.callback);
      allowedFilterNames.push(entry.name);
      continue;
    }
    allowedFilterNames.push(entry);
    if (entry === '*') allColumns = true;
    else if (entry.endsWith('.*')) wildcardOwners.add(entry.slice(0, -2));
    else exactFilters.add(entry);
  }
  const visible = (column: string) => resource.columns.get(column)?.hidden === false;
  for (const column of policy.allowedSorts ?? [])
    if (!visible(column)) throw new ConfigurationError(`${where}: allowedSorts names unknown column "${column}".`);
  const allowedSorts = new Set(policy.allowedSorts ?? []);
  const defaultSort = parseSort(policy.defaultSort ?? `-${resource.primaryKey}`, visible, (message) => {
    throw new ConfigurationError(`${where}: defaultSort: ${message}`);
  });
  const perPage = { default: policy.perPage?.default ?? 15, max: policy.perPage?.max ?? 100 };
  if (!(Number.isInteger(perPage.default) && perPage.default >= 1 && perPage.default <= perPage.max))
    throw new ConfigurationError(`${where}: perPage.default must be a whole number between 1 and perPage.max.`);
  return {
    path: policy.path ?? resource.name,
    resource,
    policy,
    limits: { ...defaultLimits, ...serviceLimits },
    exactFilters,
    allColumns,
    wildcardOwners,
    customFilters,
    allowedFilterNames,
    defaultFilters: Object.entries(policy.defaultFilters ?? {}).map(([name, value]) => ({
      name,
      raw: rawFromDefault(value),
    })),
    allowedSorts,
    defaultSort,
    perPage,
  };
}
