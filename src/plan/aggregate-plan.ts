import type { ResolvedColumn, ResolvedRelation } from '../resource/registry.js';
import type { Buckets, BucketUnit } from './buckets.js';
import type { QueryShape, Scalar } from './list-plan.js';

/** The metrics an aggregate computes; `count` takes no column, the others one. */
export const metricNames = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
export type MetricName = (typeof metricNames)[number];

/** One metric a client may ask for, as `allowedAggregates` names it (`count`, `sum:balance`). */
export interface MetricTerm {
  readonly name: string;
  readonly fn: MetricName;
  /** The column of the records it reads (absent for `count`). */
  readonly column?: ResolvedColumn;
}

/** One group key a client may ask for, as `allowedGroupBy` names it. */
export type GroupTerm =
  | { readonly kind: 'column'; readonly name: string; readonly column: ResolvedColumn }
  /** A column of a to-one relation, reached by LEFT JOINs on the related keys (as a relation sort). */
  | {
      readonly kind: 'path';
      readonly name: string;
      readonly hops: readonly ResolvedRelation[];
      readonly column: ResolvedColumn;
    }
  /** `created_at:month`: the date bucket a row's date or datetime falls in. */
  | {
      readonly kind: 'bucket';
      readonly name: string;
      readonly column: ResolvedColumn;
      readonly unit: BucketUnit;
    };

/** `EndpointPolicy.aggregates`, checked at start-up. */
export interface CompiledAggregates {
  readonly metrics: ReadonlyMap<string, MetricTerm>;
  readonly groups: ReadonlyMap<string, GroupTerm>;
  readonly maxGroups: number;
  readonly maxBuckets: number;
}

/** What an aggregate is ordered by: one of its metrics or group keys, by its place in the request. */
export interface AggregateOrder {
  readonly of: 'metric' | 'group';
  readonly index: number;
  readonly direction: 'asc' | 'desc';
}

/** `having[<metric>][<op>]=<value>`: the value already in the metric's SQL form (a scaled sum's units). */
export interface HavingTerm {
  readonly metric: number;
  readonly op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';
  readonly value: Scalar;
}

/** An authorized aggregate request: the list's rows (`shape`), and what is computed over them. */
export interface AggregatePlan {
  /** The list's FROM and WHERE: filters, search, trashed (no sort, no counts). */
  readonly shape: QueryShape;
  readonly metrics: readonly MetricTerm[];
  readonly groups: readonly GroupTerm[];
  /** The buckets of the request's one bucket group, when it has one. */
  readonly buckets?: Buckets;
  readonly order: readonly AggregateOrder[];
  readonly having: readonly HavingTerm[];
  /** The most groups answered; one more is read to know whether the answer was cut. */
  readonly limit: number;
  readonly tz: string;
}

/**
 * The scale of a metric's answer when it is a decimal string: a sum of a decimal column has the
 * column's scale, an average that scale plus `AVG_EXTRA_SCALE` (of an integer column: 0 + 4).
 */
export const AVG_EXTRA_SCALE = 4;
export function metricScale(metric: MetricTerm): number | undefined {
  const column = metric.column;
  if (!column || (metric.fn !== 'sum' && metric.fn !== 'avg')) return undefined;
  const scale = column.type === 'decimal' ? (column.scale ?? 0) : 0;
  if (metric.fn === 'avg') return scale + AVG_EXTRA_SCALE;
  return column.type === 'decimal' ? scale : undefined;
}
