import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';

/*
 * `expect(actual, message).toEqual(expected)` (or `.toBe` for a primitive), handed to vitest only when
 * Node finds the two different. In the oracles' and properties' loops of thousands of comparisons,
 * vitest's expect (its state, its matcher, its equality) cost more than the code under test. A pair
 * Node calls different and toEqual calls equal (a property set to undefined) passes, as with toEqual;
 * any other difference fails with vitest's own message and diff.
 */

/** Fails the test at once when `actual` does not equal `expected`. */
export function expectEqual(actual: unknown, expected: unknown, message?: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, message).toEqual(expected);
}

/** Records a failure and goes on (expect.soft) when `actual` does not equal `expected`. */
export function softEqual(actual: unknown, expected: unknown, message?: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect.soft(actual, message).toEqual(expected);
}
