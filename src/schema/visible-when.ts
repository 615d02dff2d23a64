/**
 * The `visibleWhen` rule of the schema document (spec 2.4), in one dependency-free module that
 * browsers and the server both import, so a form and the PATCH validation never disagree.
 *
 * 1. No `visibleWhen`: visible.
 * 2. `===` (the default): visible when the other input's value equals `is`; `!==`: when it differs;
 *    `in`: when `is` is an array containing the value (an `in` whose `is` is not an array: hidden).
 * 3. Any other operator: visible.
 *
 * Values compare with `===`: a select holding the string "1" is not equal to the number 1.
 */
import type { VisibleWhen } from '../resource/schema-declaration.js';

export function isVisible(
  visibleWhen: VisibleWhen | undefined,
  values: Readonly<Record<string, unknown>>,
): boolean {
  if (!visibleWhen) return true;
  const value = values[visibleWhen.field];
  switch (visibleWhen.operator ?? '===') {
    case '===':
      return value === visibleWhen.is;
    case '!==':
      return value !== visibleWhen.is;
    case 'in':
      return Array.isArray(visibleWhen.is) && visibleWhen.is.includes(value);
    default:
      return true;
  }
}
