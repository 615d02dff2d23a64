import { describe, expect, it } from 'vitest';
import { type ColumnType, columnTypes, kinds } from '../../src/kinds/index.js';
import { integerRange } from '../../src/kinds/integer.js';
import type { CatalogEngine } from '../../src/kinds/kind.js';

/**
 * `init` and start-up verification read the same kind definitions: every engine type `init` declares
 * as a kind is one that kind `serves`, or the configuration `init` writes would be refused when served
 * (test/init-kinds.test.ts serves one column of each on the real engines).
 */
const engines: CatalogEngine[] = ['postgres', 'mysql'];

/** The types src/init/kinds.ts maps itself, before asking `declaredFor`, and the kinds it gives them. */
const initDecides: Record<CatalogEngine, [type: string, kind: ColumnType][]> = {
  postgres: [
    ['int8', 'integer'],
    ['numeric', 'decimal'],
    ['citext', 'string'],
  ],
  mysql: [
    ['tinyint', 'boolean'],
    ['int', 'integer'],
    ['bigint', 'integer'],
    ['decimal', 'decimal'],
    ['numeric', 'decimal'],
    ['enum', 'enum'],
    ['set', 'set'],
  ],
};

describe('engine types: what init declares, verification accepts', () => {
  it.each(engines)('on %s, each type a kind is declared for is one it serves', (engine) => {
    const refused: string[] = [];
    for (const type of columnTypes)
      for (const name of kinds[type].declaredFor?.[engine] ?? [])
        if (!kinds[type].serves[engine].includes(name)) refused.push(`${type}: ${name}`);
    for (const [name, type] of initDecides[engine])
      if (!kinds[type].serves[engine].includes(name)) refused.push(`${type}: ${name}`);
    expect(refused).toEqual([]);
  });

  it('bounds an integer column of MariaDB’s YEAR by what YEAR holds, and only that type', () => {
    const year = { big: false, catalogType: { name: 'year', engine: 'mysql' as const } };
    expect(integerRange(year)).toMatchObject({ min: 1901, max: 2155, zero: true });
    const coerce = (text: string) => kinds.integer.coerce(year, text);
    expect(coerce('1901')).toEqual({ ok: true, value: 1901 });
    expect(coerce('2155')).toEqual({ ok: true, value: 2155 });
    expect(coerce('0')).toEqual({ ok: true, value: 0 });
    for (const text of ['5', '99', '1900', '2156', '-1'])
      expect(coerce(text)).toEqual({ ok: false, expected: 'a year between 1901 and 2155, or 0' });
    // A PostgreSQL type of that name (a domain) is no YEAR; neither is a column the catalog did not name.
    expect(integerRange({ big: false, catalogType: { name: 'year', engine: 'postgres' } }).max).toBe(
      2 ** 31 - 1,
    );
    expect(integerRange({ big: false, catalogType: { name: 'year' } }).max).toBe(2 ** 31 - 1);
    expect(kinds.integer.fromCatalog?.({ name: 'year', engine: 'mysql' })).toEqual({
      catalogType: { name: 'year', engine: 'mysql' },
    });
    expect(kinds.integer.fromCatalog?.({ name: 'int', engine: 'mysql' })).toEqual({});
  });
});
