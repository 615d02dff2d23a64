import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { integerPattern, isIntegerText } from '../../src/kinds/integer.js';

/** Texts near whole numbers: signs, digits of other scripts, spaces, exponents, hex, empty parts. */
const piece = fc.constantFrom(
  '+',
  '-',
  '0',
  '7',
  '42',
  '9007199254740993',
  ' ',
  '.',
  'e',
  'x',
  '١',
  '０',
  '',
);
const texts = fc.oneof(
  fc.array(piece, { maxLength: 6 }).map((parts) => parts.join('')),
  fc.string(),
  fc.integer().map(String),
);

describe('whole numbers written as text', () => {
  it('are recognised by their character codes exactly as the pattern recognises them', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(isIntegerText(text)).toBe(integerPattern.test(text));
      }),
      { numRuns: 20_000 },
    );
    for (const text of ['0', '-7', '+42', '0012']) expect(isIntegerText(text)).toBe(true);
    for (const text of ['', '+', '-', '1e3', '0x10', ' 1', '1 ', '١'])
      expect(isIntegerText(text)).toBe(false);
  });
});
