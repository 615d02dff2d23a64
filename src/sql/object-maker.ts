/** One field of a made object: its key, where its value is in the source, and how it is read. */
export interface MadeField {
  readonly key: string;
  /** The source's property name, or an index when the source is an array. */
  readonly from: string | number;
  /** Applied to the source's value; without it the value is taken as it is. */
  readonly read?: (value: unknown) => unknown;
}

/**
 * A function that makes, per call, one plain object with exactly these fields in this order. It runs
 * for every row of every page (SQLite's cells into rows, rows into records), so it is generated code
 * that builds one object literal: a loop of keyed stores and indirect calls took half as long again
 * (13 µs against 8.3 µs for a page of 16 users, measured alone). The code holds only keys and property
 * names as JSON string literals, and indexes as numbers; the readers are passed in, never written into
 * it. A `__proto__` key takes `defineProperty`: a literal's or an assignment's `__proto__` would set
 * the prototype instead.
 */
export function objectMaker(fields: readonly MadeField[]): (source: unknown) => Record<string, unknown> {
  const reads = fields.map((field) => field.read);
  if (fields.some((field) => field.key === '__proto__'))
    return (source) => {
      const made: Record<string, unknown> = {};
      const values = source as Record<string | number, unknown>;
      for (const [i, { key, from }] of fields.entries()) {
        const raw = values[from];
        const read = reads[i];
        Object.defineProperty(made, key, {
          value: read ? read(raw) : raw,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return made;
    };
  const cells = fields.map(({ key, from, read }, i) => {
    const at = `source[${typeof from === 'number' ? String(Math.trunc(from)) : JSON.stringify(from)}]`;
    return `${JSON.stringify(key)}: ${read ? `read[${i}](${at})` : at}`;
  });
  const make = new Function('read', `"use strict"; return (source) => ({ ${cells.join(', ')} });`);
  return make(reads) as (source: unknown) => Record<string, unknown>;
}
