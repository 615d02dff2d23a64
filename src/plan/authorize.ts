import type { ClauseInput, FieldInput, ListRequest } from '../request/list-request.js';
import { ErrorBag } from '../respond/error-bag.js';
import { ConfigurationError } from '../resource/registry.js';
import { type CompiledEndpoint, parseSort } from './endpoint.js';
import { buildConditions, notAllowedMessage, resolveFilter } from './filters.js';
import type { FilterNode, ListPlan, SortTerm } from './list-plan.js';
import { coerceBoolean } from './values.js';

const MAX_PAGE = 1_000_000_000;

/** Parameters parsed by `parse` that this version does not serve yet: rejected, never ignored. */
const notYetSupported = ['include', 'count', 'search', 'cursor', 'all'] as const;

interface Scope {
  withTrashed: boolean;
}

/** ListRequest × endpoint policy → ListPlan, or undefined with every problem added to `errors`. */
export function authorize(request: ListRequest, endpoint: CompiledEndpoint, errors: ErrorBag): ListPlan | undefined {
  const state: Scope = { withTrashed: false };
  const where = clause(endpoint, request.filter, errors, state, 0);
  const defaults = endpoint.defaultFilters.filter((field) => !request.mentioned.has(field.name));
  if (defaults.length > 0) where.push(...clause(endpoint, { fields: defaults, groups: [] }, errors, state, 0));

  const { params } = request;
  for (const param of notYetSupported)
    if (params[param] !== undefined && params[param] !== '')
      errors.add(param, `The ${param} parameter is not supported by this endpoint.`);
  if (params.pagination !== undefined && params.pagination !== '')
    errors.add('pagination', 'pagination accepts no value other than the default (length-aware) in this version.');

  const sort = sortTerms(endpoint, params.sort, errors);
  const perPage = wholeNumber(params.per_page, 'per_page', endpoint.perPage.default, endpoint.perPage.max, errors);
  const page = wholeNumber(params.page, 'page', 1, MAX_PAGE, errors);
  if (!errors.isEmpty) return undefined;
  return { resource: endpoint.resource, where, withTrashed: state.withTrashed, sort, page, perPage };
}

function wholeNumber(text: string | undefined, key: string, fallback: number, max: number, errors: ErrorBag): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) {
    errors.add(key, `The ${key} parameter must be a whole number between 1 and ${max}.`);
    return fallback;
  }
  return value;
}

function sortTerms(endpoint: CompiledEndpoint, text: string | undefined, errors: ErrorBag): SortTerm[] {
  const requested =
    text === undefined || text === ''
      ? [...endpoint.defaultSort]
      : parseSort(
          text,
          (column) => endpoint.allowedSorts.has(column),
          (message) =>
            errors.add(
              'sort',
              `${message} Allowed sorts: ${[...endpoint.allowedSorts].join(', ') || 'none'}; prefix with - for descending.`,
            ),
        );
  const key = endpoint.resource.primaryKey;
  // The primary key as the last term makes the order total, so offset pages never repeat or skip rows.
  if (!requested.some((term) => term.column === key)) requested.push({ column: key, direction: 'desc' });
  return requested;
}

function clause(
  endpoint: CompiledEndpoint,
  input: ClauseInput,
  errors: ErrorBag,
  state: Scope,
  depth: number,
): FilterNode[] {
  const nodes: FilterNode[] = [];
  for (const field of input.fields) {
    const node = fieldNode(endpoint, field, errors, state, depth);
    if (node) nodes.push(node);
  }
  for (const group of input.groups) {
    const children = group.members
      .map((member) => clause(endpoint, member, errors, state, depth + 1))
      .filter((members) => members.length > 0)
      .map((members): FilterNode => (members.length === 1 ? (members[0] as FilterNode) : { kind: 'and', children: members }));
    if (children.length > 0) nodes.push({ kind: group.kind, children });
  }
  return nodes;
}

function fieldNode(
  endpoint: CompiledEndpoint,
  field: FieldInput,
  errors: ErrorBag,
  state: Scope,
  depth: number,
): FilterNode | undefined {
  const key = `filter.${field.name}`;
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
      if (depth > 0) return void report('The trashed filter applies to the whole request; it cannot be used inside a group.');
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
  if (!errors.isEmpty)
    throw new ConfigurationError(
      `Endpoint "${endpoint.path}": invalid defaultFilters: ${Object.values(errors.toEnvelope().errors).flat().join(' ')}`,
    );
}
