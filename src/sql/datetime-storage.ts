import type { DatetimeStorage } from '../resource/types.js';
import type { SqlDialect } from './dialect.js';

/**
 * One place for the datetime storage conventions (ColumnOptions.storage): how an instant the client
 * wrote (always `YYYY-MM-DDTHH:MM:SS.sssZ` after coercion) is compared with and written to a column,
 * and how a stored value is read back.
 */

/** Whether a column's values are `YYYY-MM-DD HH:MM:SS[.ffffff]` text (compared by `textBounds`). */
export function isSpaceText(storage: DatetimeStorage, dialect: SqlDialect): boolean {
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
export function storedDatetime(storage: DatetimeStorage, dialect: SqlDialect, iso: string): string | number {
  switch (storage) {
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
export function unixReader(storage: DatetimeStorage): ((value: unknown) => string | null) | undefined {
  if (storage !== 'unix-seconds' && storage !== 'unix-milliseconds') return undefined;
  const scale = storage === 'unix-seconds' ? 1000 : 1;
  return (value) => {
    if (value === null || value === undefined) return null;
    const count = Number(value);
    return Number.isFinite(count) ? new Date(count * scale).toISOString() : String(value);
  };
}
