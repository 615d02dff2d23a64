/** Naming conventions `init` relies on: internal tables, sensitive columns, singular and plural forms, variables. */
import { pluralWord, singularWord } from '../resource/plurals.js';
import { snakeCase } from '../resource/words.js';

export { snakeCase };

/** Bookkeeping tables of migration tools and frameworks: never resources. */
const internalTables: Record<string, string> = {
  kysely_migration: "Kysely's migration log",
  kysely_migration_lock: "Kysely's migration lock",
  knex_migrations: "Knex's migration log",
  knex_migrations_lock: "Knex's migration lock",
  schema_migrations: "Rails' migration log",
  ar_internal_metadata: "Rails' environment metadata",
  django_migrations: "Django's migration log",
  _prisma_migrations: "Prisma's migration log",
  __drizzle_migrations: "Drizzle's migration log",
  migrations: 'a migration log (Laravel, TypeORM)',
};

/** Why a table is internal (a migration tool's, SQLite's own), or undefined for an application table. */
export function internalTableReason(name: string): string | undefined {
  if (name.toLowerCase().startsWith('sqlite_')) return "SQLite's own table";
  return Object.hasOwn(internalTables, name) ? internalTables[name] : undefined;
}

/** Columns whose values must never leave the service: passwords, hashes, tokens, secrets, keys. */
const sensitive = [
  /^password$/,
  /_password$/,
  /^password_digest$/,
  /_hash$/,
  /token/,
  /^secret/,
  /_secret$/,
  /(^|_)api_key$/,
];

export function isSensitive(column: string): boolean {
  const name = snakeCase(column);
  return sensitive.some((pattern) => pattern.test(name));
}

/** The suffix naming a foreign key column (`user_id`, `authorId`), or undefined. */
function idSuffix(column: string): string | undefined {
  return /(_id|Id|_ID)$/.exec(column)?.[1];
}

/** `user_id` → `user`, `authorId` → `author`; undefined when the name has no id suffix. */
export function stripIdSuffix(column: string): string | undefined {
  const suffix = idSuffix(column);
  return suffix && column.length > suffix.length ? column.slice(0, -suffix.length) : undefined;
}

/** Applies `transform` to the last word of a name (`blog_entry`, `blogEntry`), keeping its case style. */
function lastWord(name: string, transform: (word: string) => string): string {
  const match = /^(.*?)([A-Z]?[a-z0-9]+|[A-Z0-9]+)$/.exec(name);
  if (!match) return name;
  const [, head = '', word = ''] = match;
  const changed = transform(word.toLowerCase());
  const cased =
    word === word.toUpperCase() && word !== word.toLowerCase()
      ? changed.toUpperCase()
      : word[0] !== word[0]?.toLowerCase()
        ? `${changed.charAt(0).toUpperCase()}${changed.slice(1)}`
        : changed;
  return `${head}${cased}`;
}

/** `posts` → `post`, `categories` → `category`, `people` → `person`; `status`, `staff`, `data` stay. */
export function singularize(name: string): string {
  return lastWord(name, singularWord);
}

/** `post` → `posts`, `category` → `categories`, `person` → `people`; `staff`, `media`, `posts` stay. */
export function pluralize(name: string): string {
  return lastWord(name, pluralWord);
}

/** `Post` → `post`: a PascalCase model table's name as a property name. */
export function lowerFirst(name: string): string {
  return /^[A-Z][a-z]/.test(name) ? `${name.charAt(0).toLowerCase()}${name.slice(1)}` : name;
}

/** `invoiceLine` → `InvoiceLine`. */
export function upperFirst(name: string): string {
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}

/**
 * The one style of relation names: camelCase, whatever the catalog's style. `SupportRep` → `supportRep`,
 * `blog_entry` → `blogEntry`, `ReportsTo` → `reportsTo`, `_CategoryToPost` → `categoryToPost`, `A` → `a`.
 */
export function camelName(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  return words
    .map((word, i) => {
      if (i > 0) return upperFirst(word);
      return word === word.toUpperCase() ? word.toLowerCase() : lowerFirst(word);
    })
    .join('');
}

/**
 * A to-many relation's name for a table: `InvoiceLine` → `invoiceLines`, `blog_entry` → `blogEntries`,
 * `posts` → `posts`, `staff` → `staff`.
 */
export function toManyName(table: string): string {
  return pluralize(camelName(table));
}

/** A to-one relation's name for a table: `Artist` → `artist`, `categories` → `category`, `auth_user` → `authUser`. */
export function toOneName(table: string): string {
  return singularize(camelName(table));
}

const reserved = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while ' +
    'with yield let static implements interface package private protected public await arguments eval ' +
    'undefined NaN Infinity'
  ).split(' '),
);

/** A valid, non-reserved JavaScript identifier. */
export function isIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && !reserved.has(name);
}

/** `auth_user` → `authUser`, `User` → `user`, `2fa codes` → `_2faCodes`: a variable name for a table. */
export function camelIdentifier(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const camel = words
    .map((word, i) => (i === 0 ? lowerFirst(word) : `${word.charAt(0).toUpperCase()}${word.slice(1)}`))
    .join('');
  const safe = camel === '' ? 'table' : /^[0-9]/.test(camel) ? `_${camel}` : camel;
  return isIdentifier(safe) ? safe : `${safe}Table`;
}

/** The module's own names: a table's variable never shadows them. */
const moduleNames = [
  'endpoints',
  'anyone',
  'shippedAdminDir',
  'belongsTo',
  'belongsToMany',
  'hasMany',
  'hasOne',
  'defineConfig',
  'defineEndpoint',
  'defineResource',
];

/** Each table's variable in the generated module, in the tables' order, all distinct. */
export function resourceVariables(tables: string[]): string[] {
  const variables = new Set(moduleNames);
  return tables.map((table) => {
    let variable = camelIdentifier(table);
    if (variables.has(variable)) variable = `${variable}Resource`;
    for (let n = 2; variables.has(variable); n++) variable = `${camelIdentifier(table)}Resource${n}`;
    variables.add(variable);
    return variable;
  });
}
