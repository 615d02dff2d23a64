import { describe, expect, it } from 'vitest';
import { resources } from '../../examples/demo/resources.js';
import { rowReader } from '../../src/load/row-reader.js';
import { defineResource } from '../../src/resource/policy.js';
import { resolveResources } from '../../src/resource/resolve.js';

/** The row reader is generated code: names that are awkward in JavaScript source must stay data. */
describe('rowReader', () => {
  it('turns a row of the demo users into the record every engine answers with', () => {
    const users = resolveResources(resources).get('users');
    if (!users) throw new Error('no users');
    const read = rowReader(users);
    const record = read({
      id: '7',
      name: 'Ann',
      email: 'ann@example.com',
      status: 'active',
      score: 80,
      balance: '12.50',
      is_admin: 1,
      birthday: '1990-02-03',
      settings: '{"theme":"dark"}',
      department_id: null,
      created_at: '2024-01-02 03:04:05',
      updated_at: '2024-01-02 03:04:05.5+00',
      deleted_at: null,
      password_hash: 'secret',
      extra: 'not a column',
    });
    expect(record).toMatchObject({
      id: 7,
      name: 'Ann',
      balance: 12.5,
      is_admin: true,
      settings: { theme: 'dark' },
      created_at: '2024-01-02T03:04:05.000Z',
      updated_at: '2024-01-02T03:04:05.500Z',
      deleted_at: null,
    });
    // Hidden columns and whatever else the row holds stay out.
    expect(Object.keys(record)).toEqual(users.visibleColumns.map((column) => column.name));
    expect(record).not.toHaveProperty('password_hash');
  });

  it('keeps quotes, backslashes, line breaks and __proto__ in column names as plain properties', () => {
    const names = [
      'with "quote"',
      'back\\slash',
      'line\nbreak',
      "x'); process.exit(1); ('",
      "it's",
      '__proto__',
    ];
    for (const pick of [names.slice(0, 5), names]) {
      const resource = resolveResources([
        defineResource({
          name: 'odd',
          table: 'odd',
          columns: { id: 'integer', ...Object.fromEntries(pick.map((name) => [name, 'string'])) },
        }),
      ]).get('odd');
      if (!resource) throw new Error('no resource');
      const row = Object.fromEntries([['id', 1], ...pick.map((name, i) => [name, `v${i}`])]);
      const record = rowReader(resource)(row);
      expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
      expect(Object.keys(record)).toEqual(['id', ...pick]);
      for (const [i, name] of pick.entries())
        expect(Object.getOwnPropertyDescriptor(record, name)?.value).toBe(`v${i}`);
    }
  });
});
