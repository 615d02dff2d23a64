import { coerceBoolean, coerceDate, coerceYear, nextDay } from '../kinds/index.js';
import type { FieldInput, RawValue } from '../request/list-request.js';
import { isObject } from '../request/parse.js';
import type { ResolvedColumn } from '../resource/registry.js';
import type { CustomFilterCallback, ScopeCallback } from '../resource/types.js';
import type { FilterScope } from './endpoint.js';
import type { Condition, FieldTarget, Scalar } from './list-plan.js';
import { isOperator, type OperatorName, operators, operatorsFor, type TargetKind } from './operators.js';
import { maxJsonDepth, resolvePath } from './paths.js';
import { coerceForColumn, coerceForJson, jsonTypeOf } from './values.js';

/** What a filter name turned out to be, decided from the definitions alone. */
export type Resolution =
  | { kind: 'custom'; callback: CustomFilterCallback }
  | { kind: 'trashed' }
  | { kind: 'scope'; scope: ScopeCallback }
  | { kind: 'field'; target: FieldTarget; column: ResolvedColumn };

/**
 * Resolves and authorizes a filter name, or returns undefined: an unknown name and a name the policy
 * does not allow get the same answer, so errors never reveal the schema. The first segment of a
 * dotted name is a relation or a JSON column of the resource, by its definition.
 */
export function resolveFilter(endpoint: FilterScope, name: string): Resolution | undefined {
  const custom = endpoint.customFilters.get(name);
  if (custom) return { kind: 'custom', callback: custom };
  const { resource } = endpoint;
  if (name === 'trashed' && resource.softDeleteColumn)
    return endpoint.exactFilters.has(name) ? { kind: 'trashed' } : undefined;
  const scope = resource.scopes.get(name);
  if (scope) return endpoint.exactFilters.has(name) ? { kind: 'scope', scope } : undefined;

  const path = resolvePath(resource, name);
  if (!path) return undefined;
  const { owner } = path;
  const allowed =
    endpoint.exactFilters.has(name) ||
    (owner.length === 0 ? endpoint.allColumns : endpoint.wildcardOwners.has(owner.join('.')));
  return allowed ? { kind: 'field', target: path.target, column: path.column } : undefined;
}

export function notAllowedMessage(endpoint: FilterScope, name: string): string {
  // Too deep inside a JSON column the endpoint allows: say so (the column is no secret to this client).
  for (const owner of endpoint.wildcardOwners) {
    if (!name.startsWith(`${owner}.`) || resolvePath(endpoint.resource, owner)?.column.type !== 'json')
      continue;
    const keys = name.slice(owner.length + 1).split('.').length;
    if (keys > maxJsonDepth)
      return `The filter "${name}" is ${keys} keys deep inside "${owner}": a path inside a JSON column is at most ${maxJsonDepth} keys deep.`;
  }
  const allowed = endpoint.allowedFilterNames;
  return `The filter "${name}" is not authorized for this resource (${endpoint.resource.name}). ${
    allowed.length > 0 ? `Allowed filters: ${allowed.join(', ')}.` : 'This resource allows no filters.'
  }`;
}

/** Collects the problems of one field: each message is added under `filter.<name>`. */
type Report = (message: string) => void;

/** `filter[x]=v`, `filter[x][op]=v`, … → the operator/value pairs, in the client's order. */
function operatorEntries(field: FieldInput, kind: TargetKind, report: Report): [OperatorName, RawValue][] {
  const { name, raw } = field;
  if (typeof raw === 'string') return [['eq', raw]];
  if (Array.isArray(raw)) {
    report(
      `The filter "${name}" was given several values; use one value, or an operator such as filter[${name}][in]=a,b.`,
    );
    return [];
  }
  const entries: [OperatorName, RawValue][] = [];
  for (const [op, value] of Object.entries(raw)) {
    if (isOperator(op)) entries.push([op, value]);
    else
      report(
        `Unknown operator "${op}" in filter "${name}". Operators for it (${describeKind(kind)}): ${operatorsFor(kind).join(', ')}.`,
      );
  }
  return entries;
}

/** A list value: CSV, `[]` or indexed; empty items dropped. */
function listOf(value: RawValue): string[] | undefined {
  if (typeof value === 'string') return value.split(',').filter((item) => item !== '');
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  return undefined;
}

export function targetKind(target: FieldTarget): TargetKind {
  return target.jsonPath ? 'json-path' : target.columnType;
}

function describeKind(kind: TargetKind): string {
  return kind === 'json-path' ? 'a path inside a JSON column' : `a ${kind} column`;
}

/** Turns one field's operators and values into typed conditions, reporting every problem. */
export function buildConditions(
  endpoint: FilterScope,
  field: FieldInput,
  resolution: Extract<Resolution, { kind: 'field' }>,
  report: Report,
): Condition[] {
  const { name } = field;
  const kind = targetKind(resolution.target);
  const { maxValueLength, maxListLength } = endpoint.limits;
  const conditions: Condition[] = [];
  for (const [op, value] of operatorEntries(field, kind, report)) {
    const spec = operators[op];
    if (!(spec.targets as readonly TargetKind[]).includes(kind)) {
      report(
        `The operator "${op}" cannot be used with filter "${name}" (${describeKind(kind)}). Operators for it: ${operatorsFor(kind).join(', ')}.`,
      );
      continue;
    }
    const texts =
      spec.shape === 'list' || spec.shape === 'pair' || spec.shape === 'datePair' ? listOf(value) : undefined;
    const single = typeof value === 'string' ? value : undefined;
    const values = texts ?? (single === undefined ? [] : [single]);
    if (texts === undefined && single === undefined) {
      report(
        isObject(value) || spec.shape !== 'list'
          ? `The operator "${op}" of filter "${name}" takes a single value.`
          : `The operator "${op}" of filter "${name}" takes a list of values.`,
      );
      continue;
    }
    const tooLong = values.find((text) => text.length > maxValueLength);
    if (tooLong !== undefined) {
      report(
        `A value of filter "${name}" is ${tooLong.length} characters long: the limit is ${maxValueLength}.`,
      );
      continue;
    }
    const condition = buildCondition(op, values, resolution, kind, (expected) =>
      report(`The operator "${op}" of filter "${name}" needs ${expected}.`),
    );
    if (spec.shape === 'list' && values.length > maxListLength) {
      report(`The list of filter "${name}" has ${values.length} values: the limit is ${maxListLength}.`);
      continue;
    }
    if (condition) conditions.push(condition);
  }
  return conditions;
}

function buildCondition(
  op: OperatorName,
  texts: string[],
  resolution: Extract<Resolution, { kind: 'field' }>,
  kind: TargetKind,
  fail: (expected: string) => void,
): Condition | undefined {
  const shape = operators[op].shape;
  if (shape === 'flag') {
    const flag = coerceBoolean(texts[0] as string);
    if (!flag.ok) return void fail(flag.expected);
    const positive = op === 'is_null' || op === 'is_empty';
    const negate = positive !== flag.value;
    return op === 'is_null' || op === 'is_not_null' ? { op: 'is_null', negate } : { op: 'is_empty', negate };
  }
  if (shape === 'text')
    return {
      op,
      value: texts[0] as string,
      ...(kind === 'json-path' ? { jsonType: 'string' } : {}),
    } as Condition;
  if (shape === 'date' || shape === 'datePair' || shape === 'year') return dateRange(op, texts, kind, fail);
  if ((shape === 'pair' && texts.length !== 2) || (shape === 'list' && texts.length === 0)) {
    return void fail(
      shape === 'pair'
        ? `two values (from and to), such as 10,20; it got ${texts.length}`
        : 'at least one value',
    );
  }
  const coerced = coerceAll(texts, resolution, kind, op === 'eq' || op === 'neq' || shape === 'list', fail);
  if (!coerced) return undefined;
  const { values, jsonType } = coerced;
  const typed = jsonType ? { jsonType } : {};
  if (shape === 'list') return { op: op as 'in' | 'not_in' | 'has_all' | 'has_any', value: values, ...typed };
  if (shape === 'pair')
    return {
      op: op as 'between' | 'not_between',
      value: [values[0], values[1]] as [Scalar, Scalar],
      ...typed,
    };
  return { op: op as 'eq', value: values[0] as Scalar, ...typed };
}

function coerceAll(
  texts: string[],
  resolution: Extract<Resolution, { kind: 'field' }>,
  kind: TargetKind,
  allowBoolean: boolean,
  fail: (expected: string) => void,
): { values: Scalar[]; jsonType?: Condition['jsonType'] } | undefined {
  if (kind === 'json-path') {
    const jsonType = jsonTypeOf(texts, allowBoolean);
    return { values: texts.map((text) => coerceForJson(jsonType, text)), jsonType };
  }
  const values: Scalar[] = [];
  for (const text of texts) {
    const result = coerceForColumn(resolution.column, text);
    if (!result.ok)
      return void fail(`${result.expected}; "${text.length > 40 ? `${text.slice(0, 40)}…` : text}" is not`);
    values.push(result.value);
  }
  return { values };
}

/** `date_eq`, `date_between`, `year` → a half-open range on the raw column (index-friendly, exact). */
function dateRange(
  op: OperatorName,
  texts: string[],
  kind: TargetKind,
  fail: (expected: string) => void,
): Condition | undefined {
  let from: string;
  let toExclusive: string | undefined;
  if (op === 'year') {
    const year = coerceYear(texts[0] as string);
    if (!year.ok) return void fail(year.expected);
    from = `${year.value}-01-01`;
    toExclusive = year.value < 9999 ? `${year.value + 1}-01-01` : undefined;
  } else if (op === 'date_eq') {
    const date = coerceDate(texts[0] as string);
    if (!date.ok) return void fail(date.expected);
    from = date.value;
    toExclusive = nextDay(date.value);
  } else {
    if (texts.length !== 2)
      return void fail(`two dates (from and to), such as 2024-01-01,2024-01-31; it got ${texts.length}`);
    const start = coerceDate(texts[0] as string);
    const end = coerceDate(texts[1] as string);
    if (!start.ok || !end.ok) return void fail('two dates in the form YYYY-MM-DD (years 1000 to 9999)');
    from = start.value;
    toExclusive = nextDay(end.value);
  }
  const instant = (day: string) => (kind === 'datetime' ? `${day}T00:00:00.000Z` : day);
  return {
    op: 'range',
    from: instant(from),
    ...(toExclusive === undefined ? {} : { to: instant(toExclusive) }),
    ...(kind === 'json-path' ? { jsonType: 'string' as const } : {}),
  };
}
