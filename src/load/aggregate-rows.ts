import { type AggregatePlan, AVG_EXTRA_SCALE, type MetricTerm, metricScale } from '../plan/aggregate-plan.js';
import { averagedAlias, groupAlias, metricAlias } from '../sql/compile.js';
import type { Row } from '../sql/dialect.js';
import { readerOf } from './row-reader.js';

/** One group of an aggregate's answer: its keys by name, then each metric by name. */
export type AggregateGroup = { group: Record<string, unknown> } & Record<string, unknown>;

/**
 * An exact decimal string of `units` (a whole number of 10^-scale): `123450n`, 2 → `"1234.50"`.
 * By hand: BigInt has no decimal form, and a double would round past 2^53.
 */
export function decimalText(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const text = scale > 0 ? `${whole}.${digits.slice(-scale)}` : whole;
  return negative ? `-${text}` : text;
}

/** `sum / count` with `extra` more decimals than the sum's, rounded half away from zero, exactly. */
export function quotientText(sum: bigint, count: bigint, scale: number, extra: number): string {
  const numerator = sum * 10n ** BigInt(extra);
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  let quotient = magnitude / count;
  if ((magnitude % count) * 2n >= count) quotient += 1n;
  return decimalText(negative ? -quotient : quotient, scale + extra);
}

const units = (value: unknown): bigint => BigInt(String(value));

/** One metric's value of a row, in the answer's form (docs/aggregates.md). */
function metricValue(metric: MetricTerm, row: Row, index: number): unknown {
  const value = row[metricAlias(index)];
  if (metric.fn === 'count' || metric.fn === 'count_distinct') return Number(value ?? 0);
  const column = metric.column;
  if (!column) return value;
  if (metric.fn === 'min' || metric.fn === 'max') {
    if (value === null || value === undefined) return null;
    const read = readerOf(column);
    return read ? read(value) : value;
  }
  if (value === null || value === undefined) return null;
  const scale = metricScale(metric);
  if (metric.fn === 'avg') {
    const count = Number(row[averagedAlias(index)] ?? 0);
    if (count === 0) return null;
    return quotientText(units(value), BigInt(count), (scale as number) - AVG_EXTRA_SCALE, AVG_EXTRA_SCALE);
  }
  if (scale !== undefined) return decimalText(units(value), scale);
  if (column.type === 'bigint') return units(value).toString();
  // An integer sum comes as exact text (or a whole number): a number where a JSON number holds it,
  // else the string of its digits, as the integer kind answers a value past 2^53 — never rounded.
  const whole = units(value);
  return whole <= BigInt(Number.MAX_SAFE_INTEGER) && whole >= -BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(whole)
    : whole.toString();
}

/** The rows of an aggregate's statement → its groups, and whether the groups were cut at the limit. */
export function aggregateGroups(
  plan: AggregatePlan,
  rows: readonly Row[],
): {
  groups: AggregateGroup[];
  truncated: boolean;
} {
  const truncated = rows.length > plan.limit;
  const kept = truncated ? rows.slice(0, plan.limit) : rows;
  const readers = plan.groups.map((group) => (group.kind === 'bucket' ? undefined : readerOf(group.column)));
  const groups = kept.map((row) => {
    const group: Record<string, unknown> = {};
    for (const [i, term] of plan.groups.entries()) {
      const value = row[groupAlias(i)];
      if (term.kind === 'bucket') group[term.name] = plan.buckets?.labels[Number(value)] ?? null;
      else {
        const read = readers[i];
        group[term.name] = value === undefined || value === null ? null : read ? read(value) : value;
      }
    }
    const answer: AggregateGroup = { group };
    for (const [i, metric] of plan.metrics.entries()) answer[metric.name] = metricValue(metric, row, i);
    return answer;
  });
  return { groups, truncated };
}
