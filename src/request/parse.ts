import qs from 'qs';
import type { ErrorBag } from '../errors/error-bag.js';
import { decodeQueryComponent } from './decode.js';
import type { Limits } from './limits.js';
import {
  type ClauseInput,
  type FieldInput,
  type GroupInput,
  type IncludeConstraintInput,
  type ListRequest,
  type RawValue,
  type ScalarParam,
  scalarParams,
} from './list-request.js';

const groupKinds = new Set(['and', 'or']);
/** The constraints of one include's related records, keyed by include path: `include_filter[posts][…]`. */
const includeParams = ['include_filter', 'include_sort', 'include_limit'] as const;
const knownParams = new Set<string>(['filter', 'fields', ...scalarParams, ...includeParams]);
/** Parameters whose value is a comma-separated list, so a list given as an array reads the same. */
const listParams = new Set<string>(['include', 'count', 'sort']);

/** The qs options for our limits: every limit throws instead of silently reshaping the input. */
function qsOptions(limits: Limits): qs.IParseOptions {
  return {
    // [include path] for include_filter, filter [or] [0] per group level, then [name] [operator] [index].
    depth: limits.maxGroupDepth * 2 + 5,
    strictDepth: true,
    arrayLimit: Math.max(limits.maxListLength, limits.maxConditions),
    parameterLimit: 1000,
    throwOnLimitExceeded: true,
    allowDots: false,
    allowPrototypes: false,
    plainObjects: true,
    parseArrays: true,
    comma: false,
    duplicates: 'combine',
  };
}

function limitMessage(error: Error, limits: Limits): [string, string] {
  if (/depth/i.test(error.message))
    return ['filter', `Filter groups are nested too deeply: the limit is ${limits.maxGroupDepth} levels.`];
  if (/array limit/i.test(error.message))
    return [
      'filter',
      `A list in the query string is too long: the limit is ${Math.max(limits.maxListLength, limits.maxConditions)} elements.`,
    ];
  return ['query', 'The query string has too many parameters: the limit is 1000.'];
}

/**
 * Query string → ListRequest. Checks shapes only (which parameters, nesting, repetition); what the
 * names mean is `authorize`'s business. Problems are added to `errors`.
 */
const unknownListParameter = (key: string) =>
  `Unknown query parameter "${key}". Known parameters: ${[...knownParams].join(', ')}.`;

export function parseListQuery(
  rawQuery: string,
  limits: Limits,
  errors: ErrorBag,
  /** What an unknown parameter is told; a read-one request names the few it takes instead. */
  unknownMessage: (key: string) => string = unknownListParameter,
): ListRequest {
  const empty: ListRequest = {
    filter: { fields: [], groups: [] },
    mentioned: new Set(),
    fields: {},
    includeConstraints: {},
    params: {},
    rawQuery,
  };
  if (rawQuery.length > limits.maxQueryLength) {
    errors.add(
      'query',
      `The query string is ${rawQuery.length} characters long: the limit is ${limits.maxQueryLength}.`,
    );
    return empty;
  }
  if (reservedKeys(rawQuery, errors)) return empty;
  let parsed: Record<string, RawValue>;
  try {
    parsed = qs.parse(rawQuery, qsOptions(limits)) as Record<string, RawValue>;
  } catch (error) {
    const [key, message] = limitMessage(error as Error, limits);
    errors.add(key, message);
    return empty;
  }

  const params: Partial<Record<ScalarParam, string>> = {};
  const fields: Record<string, string> = {};
  const includeConstraints: Record<string, IncludeConstraintInput> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!knownParams.has(key)) {
      errors.add(key, unknownMessage(key));
    } else if (key === 'fields') {
      fieldSets(value, fields, errors);
    } else if (key === 'include_sort' || key === 'include_limit') {
      includeTexts(key, value, includeConstraints, errors);
    } else if (key !== 'filter' && key !== 'include_filter') {
      if (typeof value === 'string') params[key as ScalarParam] = value;
      // `include[]=a&include[]=b` (what axios and qs write) means `include=a,b`: these take lists.
      else if (listParams.has(key) && Array.isArray(value) && value.every((item) => typeof item === 'string'))
        params[key as ScalarParam] = value.join(',');
      else errors.add(key, `The ${key} parameter must be given once, as a single value.`);
    }
  }

  const mentioned = new Set<string>();
  const walker = new FilterWalker(limits, errors, mentioned);
  const rawFilter = parsed.filter;
  let filter: ClauseInput = empty.filter;
  if (rawFilter !== undefined) {
    if (isObject(rawFilter)) filter = walker.clause(rawFilter, 'filter', 0);
    else if (prune(rawFilter) !== undefined)
      errors.add(
        'filter',
        'Filters are given as filter[<name>]=<value> or filter[<name>][<operator>]=<value>.',
      );
  }
  // The same grammar as `filter`, per include; its names never count as mentioned (defaults are the
  // records' own), its conditions count towards the same limit.
  const includeWalker = new FilterWalker(limits, errors, new Set());
  const rawIncludeFilter = parsed.include_filter;
  if (rawIncludeFilter !== undefined) {
    const shape =
      'Include filters are given as include_filter[<include path>][<name>]=<value> or include_filter[<include path>][<name>][<operator>]=<value>.';
    if (!isObject(rawIncludeFilter)) {
      if (prune(rawIncludeFilter) !== undefined) errors.add('include_filter', shape);
    } else
      for (const [path, raw] of Object.entries(rawIncludeFilter)) {
        const key = `include_filter.${path}`;
        if (isObject(raw)) {
          const clause = includeWalker.clause(raw, key, 0, key);
          if (clause.fields.length > 0 || clause.groups.length > 0)
            includeConstraints[path] = { ...includeConstraints[path], filter: clause };
        } else if (prune(raw) !== undefined) errors.add(key, shape);
      }
  }
  const conditions = walker.conditions + includeWalker.conditions;
  if (conditions > limits.maxConditions)
    errors.add(
      'filter',
      `The request has ${conditions} filter conditions: the limit is ${limits.maxConditions}.`,
    );
  return { filter, mentioned, fields, includeConstraints, params, rawQuery };
}

/** `include_sort[<path>]=-a,b` and `include_limit[<path>]=3`, each path once. */
function includeTexts(
  param: 'include_sort' | 'include_limit',
  value: RawValue,
  into: Record<string, IncludeConstraintInput>,
  errors: ErrorBag,
): void {
  const member = param === 'include_sort' ? 'sort' : 'limit';
  const example = param === 'include_sort' ? '-<column>,<column>' : '<number>';
  if (!isObject(value))
    return void errors.add(param, `The ${param} parameter is given as ${param}[<include path>]=${example}.`);
  for (const [path, raw] of Object.entries(value)) {
    // A sort is a list (the array forms read as the comma-separated one); a limit is one value.
    const text = member === 'sort' ? listText(raw) : typeof raw === 'string' ? raw : undefined;
    if (text === undefined)
      errors.add(`${param}.${path}`, `${param}[${path}] must be given once, as ${example}.`);
    else if (text !== '') into[path] = { ...into[path], [member]: text };
  }
}

/** A comma-separated list, or the same as `a[]=x&a[]=y` (what axios and qs write). */
const listText = (value: RawValue): string | undefined =>
  typeof value === 'string'
    ? value
    : Array.isArray(value) && value.every((item) => typeof item === 'string')
      ? value.join(',')
      : undefined;

/** `fields=a,b` (the records') and `fields[<owner>]=a,b`, each owner once. */
function fieldSets(value: RawValue, into: Record<string, string>, errors: ErrorBag): void {
  const shape =
    'Fields are given as fields[<resource or include>]=<column>,<column> (or fields=<column>,… for the records).';
  // `fields=a&fields[roles]=b` reaches here as ['a', { roles: 'b' }]: the bare part is the records'.
  const parts = Array.isArray(value) ? value : [value];
  const bare = parts.filter((part): part is string => typeof part === 'string');
  if (bare.length > 0) into[''] = bare.join(',');
  for (const part of parts) {
    if (typeof part === 'string') continue;
    if (!isObject(part)) return void errors.add('fields', shape);
    for (const [owner, list] of Object.entries(part)) {
      const text = listText(list);
      if (text === undefined) errors.add(`fields.${owner}`, shape);
      else into[owner] = text;
    }
  }
}

class FilterWalker {
  conditions = 0;

  constructor(
    private readonly limits: Limits,
    private readonly errors: ErrorBag,
    private readonly mentioned: Set<string>,
  ) {}

  /** `prefix`: the key a name's problems are reported under (`filter.<name>`, `include_filter.posts.<name>`). */
  clause(raw: { [key: string]: RawValue }, path: string, depth: number, prefix = 'filter'): ClauseInput {
    const fields: FieldInput[] = [];
    const groups: GroupInput[] = [];
    for (const [name, value] of Object.entries(raw)) {
      if (groupKinds.has(name)) {
        const group = this.group(name as GroupInput['kind'], value, `${path}.${name}`, depth + 1, prefix);
        if (group) groups.push(group);
        continue;
      }
      this.mentioned.add(name);
      const pruned = prune(value);
      if (pruned === undefined) continue; // rule 4.2.5: an empty value is no filter at all
      if (hasNul(pruned)) {
        // No engine stores it in text, and PostgreSQL rejects it outright: refuse it for every filter kind.
        this.errors.add(`${prefix}.${name}`, `A value of filter "${name}" contains a NUL character.`);
        continue;
      }
      this.conditions += isObject(pruned) ? Object.keys(pruned).length : 1;
      fields.push({ name, raw: pruned });
    }
    return { fields, groups };
  }

  private group(
    kind: GroupInput['kind'],
    raw: RawValue,
    key: string,
    depth: number,
    prefix: string,
  ): GroupInput | undefined {
    if (depth > this.limits.maxGroupDepth) {
      this.errors.add(
        'filter',
        `Filter groups are nested too deeply: the limit is ${this.limits.maxGroupDepth} levels.`,
      );
      return undefined;
    }
    const indexed =
      Array.isArray(raw) || (isObject(raw) && Object.keys(raw).every((k) => /^(0|[1-9]\d*)$/.test(k)));
    if (!indexed) {
      if (prune(raw) !== undefined)
        this.errors.add(
          key,
          `A ${kind} group is a list of members: filter[${kind}][<index>][<name>]=<value>.`,
        );
      return undefined;
    }
    const items = Array.isArray(raw) ? raw : Object.values(raw);
    const members: ClauseInput[] = [];
    for (const item of items) {
      if (!isObject(item)) {
        if (prune(item) !== undefined)
          this.errors.add(
            key,
            `Each member of a ${kind} group is a filter: filter[${kind}][<index>][<name>]=<value>.`,
          );
        continue;
      }
      const member = this.clause(item, key, depth, prefix);
      if (member.fields.length > 0 || member.groups.length > 0) members.push(member);
    }
    return members.length > 0 ? { kind, members } : undefined;
  }
}

/** Names JavaScript objects give meaning to: qs drops `__proto__` segments silently. */
const reserved = /^(__proto__|constructor|prototype)$/;
const mayHoldReserved = /proto|constructor|%/i;

/**
 * Refuses a key with a `__proto__`, `constructor` or `prototype` segment (`filter[__proto__][status]`),
 * named as the error key the parameter would have (`filter.__proto__.status`). qs would drop the
 * segment, or everything under it, and the request would be answered as if it had asked for less —
 * with every row. Written by hand: qs offers no hook that sees the segments it drops.
 */
function reservedKeys(rawQuery: string, errors: ErrorBag): boolean {
  if (!mayHoldReserved.test(rawQuery)) return false;
  let found = false;
  for (const pair of rawQuery.split('&')) {
    const equals = pair.indexOf('=');
    const key = decodeQueryComponent(equals === -1 ? pair : pair.slice(0, equals));
    const segments = key.split(/\]?\[|\]/).filter((segment) => segment !== '');
    const segment = segments.find((part) => reserved.test(part));
    if (segment === undefined) continue;
    errors.add(segments.join('.'), `"${segment}" cannot be the name of a parameter, filter or operator.`);
    found = true;
  }
  return found;
}

export function isObject(value: RawValue | undefined): value is { [key: string]: RawValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasNul(value: RawValue): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  return (Array.isArray(value) ? value : Object.values(value)).some(hasNul);
}

/** Drops empty strings, empty lists and empty objects, recursively (rule 4.2.5). */
function prune(value: RawValue): RawValue | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (Array.isArray(value)) {
    const items = value.map(prune).filter((item): item is RawValue => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  const entries = Object.entries(value)
    .map(([key, item]) => [key, prune(item)] as const)
    .filter((entry): entry is readonly [string, RawValue] => entry[1] !== undefined);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The parameters of an aggregate request beside the list's filters (`having` is bracketed). */
export const aggregateParams = ['metrics', 'group_by', 'tz', 'from', 'to', 'limit', 'sort'] as const;
export type AggregateParam = (typeof aggregateParams)[number];
const aggregateKeys = new Set<string>([...aggregateParams, 'having']);
/**
 * List parameters that shape a page of records, which an aggregate answer has none of: all but
 * `search`, which selects rows (`sort` is the aggregate's own).
 */
const pageOnly = new Set<string>(scalarParams.filter((name) => name !== 'search' && name !== 'sort'));

/** An aggregate request, reduced to shapes: the list's filters and search, and its own parameters. */
export interface AggregateRequest {
  /** The filters and search, read by the list's parser exactly as a list reads them. */
  readonly list: ListRequest;
  readonly params: Readonly<Partial<Record<AggregateParam, string>>>;
  /** `having[<metric>][<operator>]=<value>`, still raw. */
  readonly having: { readonly [key: string]: RawValue } | undefined;
}

const unknownAggregateParameter = (key: string) =>
  `Unknown query parameter "${key}". Known parameters: filter, search, ${[...aggregateKeys].join(', ')}.`;

/**
 * Query string → AggregateRequest: its own parameters are taken out first, the rest goes through the
 * list's parser, so that filters and search are read (and refused) exactly as a list reads them.
 * Parameters that shape a page of records (`page`, `include`, `fields`, …) are refused by name.
 */
export function parseAggregateQuery(rawQuery: string, limits: Limits, errors: ErrorBag): AggregateRequest {
  const own: string[] = [];
  const rest: string[] = [];
  if (rawQuery.length <= limits.maxQueryLength)
    for (const pair of rawQuery === '' ? [] : rawQuery.split('&')) {
      const equals = pair.indexOf('=');
      const key = decodeQueryComponent(equals === -1 ? pair : pair.slice(0, equals));
      const base = key.split('[', 1)[0] as string;
      (aggregateKeys.has(base) ? own : rest).push(pair);
    }
  const asList = parseListQuery(
    rawQuery.length <= limits.maxQueryLength ? rest.join('&') : rawQuery,
    limits,
    errors,
    unknownAggregateParameter,
  );
  // Refused once, here: the list's authorize would add its own problems for includes that are not there.
  const list = { ...asList, includeConstraints: {} };
  for (const key of Object.keys(list.params))
    if (pageOnly.has(key)) errors.add(key, `The ${key} parameter does not apply to aggregates.`);
  if (Object.keys(list.fields).length > 0)
    errors.add('fields', 'The fields parameter does not apply to aggregates.');
  for (const input of Object.values(asList.includeConstraints))
    for (const part of ['filter', 'sort', 'limit'] as const)
      if (input[part] !== undefined)
        errors.add(`include_${part}`, `The include_${part} parameter does not apply to aggregates.`);
  const params: Partial<Record<AggregateParam, string>> = {};
  let having: { [key: string]: RawValue } | undefined;
  // `having[__proto__][gt]=1` would be dropped by qs, and the condition silently ignored.
  if (own.length === 0 || reservedKeys(own.join('&'), errors)) return { list, params, having };
  let parsed: Record<string, RawValue>;
  try {
    parsed = qs.parse(own.join('&'), qsOptions(limits)) as Record<string, RawValue>;
  } catch (error) {
    const [key, message] = limitMessage(error as Error, limits);
    errors.add(key === 'filter' ? 'having' : key, message);
    return { list, params, having };
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (key === 'having') {
      if (isObject(value)) having = value;
      else if (prune(value) !== undefined)
        errors.add('having', 'Conditions on metrics are given as having[<metric>][<operator>]=<value>.');
      continue;
    }
    const text = key === 'metrics' || key === 'group_by' || key === 'sort' ? listText(value) : value;
    if (typeof text === 'string') params[key as AggregateParam] = text;
    else errors.add(key, `The ${key} parameter must be given once, as a single value.`);
  }
  return { list, params, having };
}
