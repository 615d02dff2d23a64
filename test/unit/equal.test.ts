import { describe, expect, it } from 'vitest';
import { expectEqual } from '../support/equal.js';

describe("the oracles' cheap equality", () => {
  it('fails with vitest’s message where toEqual fails, and passes where toEqual passes', () => {
    expect(() => expectEqual({ a: [1, 2] }, { a: [1, 3] }, 'the keys')).toThrow(/the keys/);
    expect(() => expectEqual('1', 1)).toThrow();
    expect(() => expectEqual(new Error('one'), new Error('two'))).toThrow();
    expectEqual({ a: [1, { b: new Date(0) }] }, { a: [1, { b: new Date(0) }] });
    // Node calls these different, toEqual equal (a property set to undefined): they pass, as before.
    expectEqual({ a: 1, b: undefined }, { a: 1 });
  });
});
