import type { BooleanStorage, DatetimeStorage } from '../resource/types.js';
import type { SqlDialect } from './dialect.js';

/**
 * One place for the storage conventions (ColumnOptions.storage): how a value the client wrote (an
 * instant, always `YYYY-MM-DDTHH:MM:SS.sssZ` after coercion; a boolean) is compared with and written
 * to a column, and how a stored value is read back. Callers pass a column's storage with its kind.
 */
type Storage = DatetimeStorage | BooleanStorage;

/** Whether a column's values are `YYYY-MM-DD HH:MM:SS[.ffffff]` text (compared by `textBounds`). */
export function isSpaceText(storage: Storage, dialect: SqlDialect): boolean {
  return storage === 'text' || (storage === 'native' && dialect.nativeDatetimeIsText);
}

/** `2024-01-15T10:00:00.000Z` → `2024-01-15 10:00:00`; with milliseconds, six fractional digits. */
export function spaceText(iso: string): string {
  const ms = iso.slice(20, 23);
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${ms === '000' ? '' : `.${ms}000`}`;
}

/**
 * The smallest text above every stored form of the instant (`…:00`, `…:00.000000`, `…:00.000`):
 * the instant plus one microsecond. With `spaceText` it makes the half-open range that equality is,
 * whichever number of fractional zeros the writer used; a space form sorts as time does, since a
 * shorter prefix comes first.
 */
export function spaceTextAfter(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${iso.slice(20, 23)}001`;
}

/** The value a column of this storage holds for an instant (bound in filters and written by PATCH). */
export function storedDatetime(storage: Storage, dialect: SqlDialect, iso: string): string | number {
  switch (storage) {
    case 'integer': // a boolean storage, never a datetime's
    case 'native':
      return dialect.bindDatetime(iso);
    case 'text':
      return spaceText(iso);
    case 'iso':
      return iso;
    case 'unix-seconds':
      return Date.parse(iso) / 1000;
    case 'unix-milliseconds':
      return Date.parse(iso);
  }
}

/** A stored unix count → the ISO form; the text forms are read by the common datetime reader. */
export function unixReader(storage: Storage): ((value: unknown) => string | null) | undefined {
  if (storage !== 'unix-seconds' && storage !== 'unix-milliseconds') return undefined;
  const scale = storage === 'unix-seconds' ? 1000 : 1;
  return (value) => {
    if (value === null || value === undefined) return null;
    const count = Number(value);
    return Number.isFinite(count) ? new Date(count * scale).toISOString() : String(value);
  };
}

/** The value a boolean column of this storage holds (bound in filters and cursors, written by PATCH). */
export function storedBoolean(storage: Storage, dialect: SqlDialect, value: boolean): unknown {
  if (storage === 'integer') return value ? 1 : 0;
  if (storage === 'text') return value ? 't' : 'f';
  return dialect.bindBoolean(value);
}

/** `'t'`/`'f'` text → a boolean; the other storages are read by the common boolean reader. */
export function textBooleanReader(storage: Storage): ((value: unknown) => boolean | null) | undefined {
  if (storage !== 'text') return undefined;
  return (value) => (value === null || value === undefined ? null : value === 't');
}
