import type { ErrorBag } from '../errors/error-bag.js';
import { kinds } from '../kinds/index.js';
import type { FieldInput } from '../request/list-request.js';
import type { AggregateRequest } from '../request/parse.js';
import { type AggregateOrder, type AggregatePlan, type HavingTerm, metricScale } from './aggregate-plan.js';
import { authorize } from './authorize.js';
import { type Buckets, isTimeZone, makeBuckets, readBound } from './buckets.js';
import type { CompiledEndpoint } from './endpoint.js';
import type { Scalar } from './list-plan.js';

const havingOperators = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte']);

const commaList = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/**
 * AggregateRequest × endpoint → AggregatePlan, or undefined with every problem in `errors`. The rows
 * are the list's: its filters, search, trashed and defaults go through the list's own `authorize`,
 * so the WHERE is exactly the list's (scopes and `baseQuery` are added by the compiler, as for lists).
 */
export function authorizeAggregate(
  request: AggregateRequest,
  endpoint: CompiledEndpoint,
  errors: ErrorBag,
  defaultFilters: readonly FieldInput[],
): AggregatePlan | undefined {
  const allowed = endpoint.aggregates;
  if (!allowed) return undefined;
  const { params } = request;
  // The list's plan of the same filters, without a sort or a page (an aggregate has neither).
  const list = authorize(
    { ...request.list, params: pick(request.list.params) },
    endpoint,
    errors,
    defaultFilters,
  );

  const metricNames = commaList(params.metrics ?? 'count');
  const metrics = [];
  for (const name of new Set(metricNames)) {
    const metric = allowed.metrics.get(name);
    if (metric) metrics.push(metric);
    else
      errors.add(
        'metrics',
        `The metric "${name}" is not allowed. Allowed metrics: ${[...allowed.metrics.keys()].join(', ') || 'none'}.`,
      );
  }
  if (metricNames.length === 0) errors.add('metrics', 'Name at least one metric.');

  const groups = [];
  let refused = false;
  for (const name of new Set(commaList(params.group_by))) {
    const group = allowed.groups.get(name);
    if (group) groups.push(group);
    else {
      refused = true;
      errors.add(
        'group_by',
        `Grouping by "${name}" is not allowed. Allowed groups: ${[...allowed.groups.keys()].join(', ') || 'none'}.`,
      );
    }
  }

  const tz = params.tz ?? 'UTC';
  if (!isTimeZone(tz)) errors.add('tz', `"${tz}" is not an IANA time zone (such as UTC or Europe/Berlin).`);
  const bucketGroups = groups.filter((group) => group.kind === 'bucket');
  let buckets: Buckets | undefined;
  if (bucketGroups.length > 1) errors.add('group_by', 'A request groups by at most one date bucket.');
  const bucket = bucketGroups[0];
  if (!bucket) {
    // A refused group may have been the bucket the bounds were for: that refusal says enough.
    if (!refused)
      for (const key of ['from', 'to'] as const)
        if (params[key] !== undefined)
          errors.add(
            key,
            `The ${key} parameter bounds a date bucket; filter the rows with filter[…] otherwise.`,
          );
  } else {
    const dateColumn = bucket.column.type === 'date';
    const zone = isTimeZone(tz) ? tz : 'UTC';
    const bounds = (['from', 'to'] as const).map((key) => {
      const text = params[key];
      if (text === undefined) return void errors.add(key, `Grouping by a date bucket needs a ${key} bound.`);
      const value = readBound(text, zone, dateColumn);
      if (typeof value === 'string') return void errors.add(key, `The ${key} parameter must be ${value}.`);
      return value;
    });
    const [from, to] = bounds;
    if (from && to) {
      if (from >= to) errors.add('to', 'The to bound must come after from (to is exclusive).');
      else {
        const made = makeBuckets(from, to, bucket.unit, dateColumn, allowed.maxBuckets);
        if ('over' in made)
          errors.add(
            'group_by',
            `"${bucket.name}" from ${params.from} to ${params.to} spans more than ${made.over} buckets: the limit is ${made.over} (maxBuckets).`,
          );
        else buckets = made;
      }
    }
  }

  const order: AggregateOrder[] = [];
  for (const written of commaList(params.sort)) {
    const descending = written.startsWith('-');
    const name = descending ? written.slice(1) : written;
    const metric = metrics.findIndex((term) => term.name === name);
    const group = groups.findIndex((term) => term.name === name);
    if (metric < 0 && group < 0) {
      errors.add(
        'sort',
        `Sorting by "${name}" is not possible: sort by a requested metric or group (${[...metrics, ...groups].map((term) => term.name).join(', ')}); prefix with - for descending.`,
      );
      continue;
    }
    const of = metric >= 0 ? 'metric' : 'group';
    const index = metric >= 0 ? metric : group;
    if (!order.some((term) => term.of === of && term.index === index))
      order.push({ of, index, direction: descending ? 'desc' : 'asc' });
  }
  // Then every group key ascending: a group is unique by its keys, so the order is total.
  for (const [index] of groups.entries())
    if (!order.some((term) => term.of === 'group' && term.index === index))
      order.push({ of: 'group', index, direction: 'asc' });

  let limit = allowed.maxGroups;
  if (params.limit !== undefined) {
    if (!/^\d+$/.test(params.limit) || Number(params.limit) < 1 || Number(params.limit) > allowed.maxGroups)
      errors.add('limit', `The limit parameter must be a whole number between 1 and ${allowed.maxGroups}.`);
    else limit = Number(params.limit);
  }

  const having = havingTerms(request.having, metrics, errors);
  if (!errors.isEmpty || !list) return undefined;
  return {
    shape: {
      resource: list.resource,
      where: list.where,
      withTrashed: list.withTrashed,
      sort: [],
      counts: [],
    },
    metrics,
    groups,
    ...(buckets && { buckets }),
    order,
    having,
    limit,
    tz,
  };
}

/** The list parameters that choose rows: search alone (the others are refused by the parser). */
function pick(params: AggregateRequest['list']['params']): AggregateRequest['list']['params'] {
  return params.search === undefined ? {} : { search: params.search };
}

/** `having[<metric>][<op>]=<value>` → conditions on requested metrics, each value in its metric's form. */
function havingTerms(
  raw: AggregateRequest['having'],
  metrics: AggregatePlan['metrics'],
  errors: ErrorBag,
): HavingTerm[] {
  const terms: HavingTerm[] = [];
  for (const [name, conditions] of Object.entries(raw ?? {})) {
    const key = `having.${name}`;
    const index = metrics.findIndex((metric) => metric.name === name);
    const metric = metrics[index];
    if (!metric) {
      errors.add(key, `having names "${name}", which is not a requested metric.`);
      continue;
    }
    if (metric.fn === 'avg') {
      errors.add(key, 'having applies to count, count_distinct, sum, min and max, not to an average.');
      continue;
    }
    if (typeof conditions !== 'object' || Array.isArray(conditions)) {
      errors.add(
        key,
        `Conditions are given as having[${name}][<operator>]=<value> (eq, neq, gt, gte, lt, lte).`,
      );
      continue;
    }
    for (const [op, text] of Object.entries(conditions)) {
      if (!havingOperators.has(op) || typeof text !== 'string') {
        errors.add(key, `having takes eq, neq, gt, gte, lt or lte, each once: having[${name}][gte]=5.`);
        continue;
      }
      const value = havingValue(metric, text);
      if (typeof value === 'object')
        errors.add(key, `The value of having[${name}][${op}] must be ${value.expected}.`);
      else terms.push({ metric: index, op: op as HavingTerm['op'], value });
    }
  }
  return terms;
}

/** A having value in the form the metric's SQL gives: a count, a sum in the column's units, a column value. */
function havingValue(metric: AggregatePlan['metrics'][number], text: string): Scalar | { expected: string } {
  const { column } = metric;
  if (!column || metric.fn === 'count_distinct') {
    return /^\d{1,15}$/.test(text) ? Number(text) : { expected: 'a whole number' };
  }
  if (metric.fn === 'sum') {
    const scale = metricScale(metric) ?? 0;
    const match = /^(-?)(\d{1,18})(?:\.(\d+))?$/.exec(text);
    const fraction = match?.[3] ?? '';
    if (!match || fraction.length > scale) return { expected: `a number with at most ${scale} decimals` };
    // The sum is compared in the column's smallest unit (a scaled integer), exactly.
    const units = BigInt(`${match[1]}${match[2]}${fraction.padEnd(scale, '0')}`);
    if (units > BigInt(Number.MAX_SAFE_INTEGER) || -units > BigInt(Number.MAX_SAFE_INTEGER))
      return { expected: 'a smaller number' };
    return Number(units);
  }
  const coerced = kinds[column.type].coerce(column, text);
  return coerced.ok ? coerced.value : { expected: coerced.expected };
}
