import { describe, expect, it } from 'vitest';
import { isVisible } from '../../src/schema/visible-when.js';

describe('visibleWhen', () => {
  const values = { status: 'banned', level: 3, flag: false, empty: null };

  it('rule 1: absent → visible', () => {
    expect(isVisible(undefined, values)).toBe(true);
  });

  it('rule 2: === is the default and compares strictly', () => {
    expect(isVisible({ field: 'status', is: 'banned' }, values)).toBe(true);
    expect(isVisible({ field: 'status', is: 'active' }, values)).toBe(false);
    expect(isVisible({ field: 'status', operator: '===', is: 'banned' }, values)).toBe(true);
    expect(isVisible({ field: 'level', is: '3' }, values)).toBe(false);
    expect(isVisible({ field: 'flag', is: false }, values)).toBe(true);
    expect(isVisible({ field: 'missing', is: undefined }, values)).toBe(true);
  });

  it('rule 2: !== is visible when the value differs', () => {
    expect(isVisible({ field: 'status', operator: '!==', is: 'banned' }, values)).toBe(false);
    expect(isVisible({ field: 'status', operator: '!==', is: 'active' }, values)).toBe(true);
    expect(isVisible({ field: 'empty', operator: '!==', is: null }, values)).toBe(false);
  });

  it('rule 2: in is visible when is is an array containing the value', () => {
    expect(isVisible({ field: 'status', operator: 'in', is: ['active', 'banned'] }, values)).toBe(true);
    expect(isVisible({ field: 'status', operator: 'in', is: ['active'] }, values)).toBe(false);
    expect(isVisible({ field: 'level', operator: 'in', is: ['3'] }, values)).toBe(false);
    expect(isVisible({ field: 'level', operator: 'in', is: [1, 3] }, values)).toBe(true);
  });

  it('rule 2: in whose is is not an array is hidden (no array contains the value)', () => {
    expect(isVisible({ field: 'status', operator: 'in', is: 'banned' }, values)).toBe(false);
    expect(isVisible({ field: 'status', operator: 'in', is: { banned: true } }, values)).toBe(false);
    expect(isVisible({ field: 'empty', operator: 'in', is: null }, values)).toBe(false);
  });

  it('rule 3: any other operator → visible', () => {
    for (const operator of ['==', '>', 'contains', '', 'IN'])
      expect(isVisible({ field: 'status', operator, is: 'nothing' }, values)).toBe(true);
  });
});
