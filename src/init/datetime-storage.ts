import type { DatetimeStorage } from '../resource/types.js';
import type { ColumnModel, SampleValue } from './model.js';
import type { ColumnPlan } from './plan-types.js';

/**
 * SQLite has no datetime type: a column stores its instants as text or numbers, and its declaration
 * does not say which, so the storage is read from sampled values (elsewhere datetimes are native).
 */

/** What a datetime-looking column's declared type can hold, for a storage taken from its siblings. */
export type StorageFamily = 'integer' | 'text' | 'any';

const textForm = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/;
const isoForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** Plausible instants: seconds from 1970 to 2286, milliseconds from 1973 on. */
const SECONDS_MAX = 1e10;
const MILLISECONDS_MIN = 1e11;

/** How sampled values store their instants; `other` holds a value that fits no form. */
export function datetimeShape(samples: readonly SampleValue[]): {
  storage?: DatetimeStorage;
  note: string;
  other?: SampleValue;
} {
  if (samples.length === 0) return { note: 'no values' };
  const count = `${samples.length} sampled value${samples.length === 1 ? '' : 's'}`;
  if (samples.every((value) => typeof value === 'number' && Number.isInteger(value) && value >= 0)) {
    const numbers = samples as number[];
    if (numbers.every((value) => value <= SECONDS_MAX))
      return { storage: 'unix-seconds', note: `unix seconds (${count})` };
    if (numbers.every((value) => value >= MILLISECONDS_MIN))
      return { storage: 'unix-milliseconds', note: `unix milliseconds (${count})` };
  }
  if (samples.every((value) => typeof value === 'string' && textForm.test(value)))
    return { storage: 'text', note: `text YYYY-MM-DD HH:MM:SS (${count})` };
  if (samples.every((value) => typeof value === 'string' && isoForm.test(value)))
    return { storage: 'iso', note: `ISO text …T…Z (${count})` };
  // The first value whose form differs from the first value's: what a reader should look at.
  const form = (value: SampleValue) =>
    typeof value === 'number'
      ? 'number'
      : textForm.test(value)
        ? 'text'
        : isoForm.test(value)
          ? 'iso'
          : value;
  const first = form(samples[0] as SampleValue);
  return { note: 'mixed forms', other: samples.find((value) => form(value) !== first) ?? samples[0] };
}

/**
 * A SQLite datetime-looking column with no values: it takes the storage its table's sampled
 * datetimes agree on (within what its declared type can hold), else an assumption said in its comment.
 */
export function resolvePendingStorage(
  plan: ColumnPlan,
  column: ColumnModel,
  family: StorageFamily,
  columns: ColumnPlan[],
): void {
  const fits = (storage: DatetimeStorage) =>
    family === 'any' ||
    (family === 'integer' ? storage.startsWith('unix-') : storage === 'text' || storage === 'iso');
  const siblings = new Set(
    columns
      .filter((other) => other !== plan && other.type === 'datetime' && other.storage !== undefined)
      .map((other) => other.storage as DatetimeStorage),
  );
  const [agreed] = siblings;
  if (siblings.size === 1 && agreed && fits(agreed)) {
    plan.type = 'datetime';
    plan.storage = agreed;
    plan.notes.push(`no values to sample: stored as the table's other datetimes`);
    return;
  }
  if (family === 'integer') {
    plan.notes.push(
      `named like a datetime, but no values tell seconds from milliseconds: declare { type: 'datetime', storage: 'unix-seconds' } if it is one`,
    );
    return;
  }
  plan.storage = 'text';
  plan.notes.push(`no values to sample: assumed text YYYY-MM-DD HH:MM:SS (${column.type || 'no type'})`);
}

/** Resource-wide storage when every datetime column agrees (SQLite only: elsewhere, native). */
export function sharedDatetimeStorage(columns: ColumnPlan[]): DatetimeStorage | undefined {
  const datetimes = columns.filter((column) => column.type === 'datetime');
  const storages = new Set(datetimes.map((column) => column.storage));
  if (datetimes.length === 0 || storages.size !== 1 || storages.has(undefined)) return undefined;
  const storage = datetimes[0]?.storage;
  for (const column of datetimes) delete column.storage;
  return storage;
}
