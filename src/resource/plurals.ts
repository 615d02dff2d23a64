/**
 * English singular and plural forms of the configuration's names: `init`'s relation names and the
 * schema document's titles (the `pluralize` package's rules).
 */
import inflect from 'pluralize';
import { labelWords } from './words.js';

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

/** Words that make a name a phrase whose last word is not what its rows are (`sales_by_store`). */
const linking = new Set([
  'by',
  'of',
  'per',
  'for',
  'to',
  'in',
  'on',
  'at',
  'with',
  'and',
  'or',
  'from',
  'vs',
]);
/** Last words naming one whole that holds many (a view's, a log's): a title keeps them singular. */
const wholes = new Set([
  'list',
  'info',
  'information',
  'log',
  'history',
  'summary',
  'report',
  'view',
  'overview',
  'inventory',
  'stats',
  'statistics',
  'queue',
  'feed',
  'catalog',
]);

/**
 * A resource's title, the heading of its list: its name's words with the last one plural (`InvoiceLine`
 * → "Invoice lines", `person` → "People", `users` → "Users", `staff` → "Staff"); a phrase or a name of
 * one whole keeps its words (`sales_by_store` → "Sales by store", `film_list` → "Film list").
 */
export function titleFor(name: string): string {
  const words = labelWords(name);
  const last = words.at(-1);
  if (
    last !== undefined &&
    /^[a-z]+$/.test(last) &&
    !wholes.has(last) &&
    !words.some((word) => linking.has(word))
  )
    words[words.length - 1] = pluralWord(last);
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
