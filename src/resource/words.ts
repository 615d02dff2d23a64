/**
 * The words of the configuration's names, for what people read: English singular and plural forms
 * (`init`'s relation names, the schema document's titles).
 */
import inflect from 'pluralize';

/**
 * Words software uses uncountably where the library's English is Latin (`data` → `datum`): a `data`
 * table's record is `data`. Kept here rather than added to the library's rules, which are one table
 * shared with every other user of the package in the process.
 */
const uncountable = new Set(['data', 'metadata']);

/** One lower-case English word in the singular (the `pluralize` package's rules): `people` → `person`. */
export function singularWord(word: string): string {
  return uncountable.has(word) ? word : inflect.singular(word);
}

/** One lower-case English word in the plural; a plural or uncountable one stays (`posts`, `staff`). */
export function pluralWord(word: string): string {
  return uncountable.has(word) ? word : inflect.plural(word);
}
