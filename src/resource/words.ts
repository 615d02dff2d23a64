/**
 * The words of the configuration's names, for what people read: an identifier of any style split into
 * words (`InvoiceDate`, `customer_id`, `HTTPStatus`, `roles.name`), and the labels made of them. No
 * dependency: the client module gives a frontend (the admin UI) the same labels.
 */

/**
 * Marks the word boundaries a change of case makes: `invoiceDate`, `Line2Total`, and an acronym before
 * a word (`HTTPStatus`), but not an acronym's plural (`userIDs`).
 */
function splitCase(name: string, separator: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, `$1${separator}$2`)
    .replace(/([A-Z]+)([A-Z](?!s(?![a-z]))[a-z])/g, `$1${separator}$2`);
}

/** `InvoiceDate` → Invoice, Date; `HTTPStatus` → HTTP, Status; `customer_id` → customer, id; `userIDs` → user, IDs. */
export function words(name: string): string[] {
  return splitCase(name, ' ')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
}

/** `passwordHash` → `password_hash`, `isAdmin` → `is_admin`, `HTTPStatus` → `http_status`. */
export function snakeCase(name: string): string {
  return splitCase(name, '_')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toLowerCase();
}

/** Words a label writes upper-case however the name writes them. */
const acronyms = new Map<string, string>([
  ...'id uuid guid url uri api ip http https html css json xml csv pdf sku vat iban isbn iso utc gmt sql ssn gps cpu jwt sms mpaa'
    .split(' ')
    .map((word): [string, string] => [word, word.toUpperCase()]),
  ['ids', 'IDs'],
  ['urls', 'URLs'],
]);

/**
 * A word as a label writes it: a known acronym upper-case (`id` → `ID`); one the name writes upper-case
 * (`HTTP`, a single letter), as it is, unless the whole name shouts (`CUSTOMER_NAME`); else lower-case.
 */
function cased(word: string, shouting: boolean): string {
  const lower = word.toLowerCase();
  const acronym = acronyms.get(lower);
  if (acronym) return acronym;
  if (!shouting && word === word.toUpperCase() && word !== lower) return word;
  return lower;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The words of a name as a label writes them, its dots and wildcards separators: `HTTPStatus` → HTTP, status. */
export function labelWords(name: string): string[] {
  const shouting = !/[a-z]/.test(name);
  return words(name).map((word) => cased(word, shouting));
}

/**
 * A column's or a filter's label, from its name in any style: `created_at` → "Created at",
 * `InvoiceDate` → "Invoice date", `HTTPStatus` → "HTTP status", `customer_id` / `CustomerId` /
 * `customerId` → "Customer" (a key's id suffix names what it refers to), `id` → "ID", `roles.name` →
 * "Roles name", `user.id` → "User ID".
 */
export function labelFor(key: string): string {
  const segments = key.split('.').map(labelWords);
  const last = segments.at(-1);
  if (last && last.length > 1 && last.at(-1) === 'ID') last.pop();
  return capitalized(segments.flat().join(' '));
}

/** An enum's or a select's value as a label: separators as spaces, the first letter capitalized, the rest as written. */
export function valueLabel(value: string): string {
  return capitalized(value.replace(/[._*]+/g, ' ').trim());
}
