import { randomBytes, type ScryptOptions, scrypt } from 'node:crypto';
import { ConfigurationError } from '../errors/configuration-error.js';
import type { ErrorBag } from '../errors/error-bag.js';
import { coerceDate, decimalRange, decimalTextPattern, kinds, type Scalar } from '../kinds/index.js';
import { coerceForColumn } from '../plan/values.js';
import type { ResourceRecord } from '../resource/policy.js';
import type { ResolvedColumn, ResolvedRelation, ResolvedResource } from '../resource/registry.js';
import type { InputDeclaration } from '../resource/schema-declaration.js';
import type { SqlDialect } from '../sql/dialect.js';
import { storedBoolean } from '../sql/storage.js';
import { isVisible } from './visible-when.js';

const SCRYPT: ScryptOptions = { N: 16_384, r: 8, p: 1 };
const KEY_LENGTH = 32;

/** scrypt (node:crypto) in a self-describing string: `scrypt$N$r$p$salt$hash`, base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, SCRYPT, (error, derived) =>
      error ? reject(error) : resolve(derived),
    ),
  );
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * An email address as validation takes it, and as the OpenAPI document states it (`pattern`, beside
 * `format: email`): dot-separated atoms, `@`, and a domain of at least two labels. It is ajv-formats'
 * `email` (full mode), with the domain's dot that its fast mode and browsers' type=email do not ask:
 * `name@localhost` is refused. Letters either case (a JSON Schema pattern has no flags).
 */
export const EMAIL_PATTERN =
  "^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$";
const emailPattern = new RegExp(EMAIL_PATTERN);

const defaultMaxLength: Partial<Record<InputDeclaration['type'], number>> = {
  text: 255,
  email: 255,
  password: 255,
  textarea: 65_535,
};

export interface UpdatePlan {
  /** Column → value in the database's parameter form. */
  values: Record<string, unknown>;
  /**
   * The link sets a `references` input sets, by relation name: every related key, coerced and bound,
   * without duplicates (the whole set: links not in it are removed).
   */
  links: Map<string, unknown[]>;
}

/** The most keys a `references` input takes in one write, unless it declares `maxItems`. */
export const DEFAULT_MAX_REFERENCES = 100;

/**
 * What a `references` input writes: the links of a `belongsToMany` relation, each to a related record
 * named by its key (`key`, the related table's column the pivot points at, one column).
 */
export interface LinkTarget {
  relation: ResolvedRelation;
  key: ResolvedColumn;
  maxItems: number;
}

/** An input with its target, prepared at start-up: a column, or the links of a relation. */
export type FormInput =
  | { declaration: InputDeclaration; column: ResolvedColumn; link?: undefined }
  | { declaration: InputDeclaration; column?: undefined; link: LinkTarget };

/**
 * The relation a `references` input sets, checked at start-up: a `belongsToMany` of the resource whose
 * related key is one column (a composite-key related resource has no key to send), and whose parent
 * key a write knows (the primary key, or a visible column).
 */
export function linkTarget(resource: ResolvedResource, declaration: InputDeclaration): LinkTarget {
  const where = `Form of "${resource.name}": references input "${declaration.name}"`;
  const name = declaration.relation ?? declaration.name;
  const relation = resource.relations.get(name);
  if (relation?.kind !== 'belongsToMany' || !relation.pivot)
    throw new ConfigurationError(`${where} names "${name}", which is not a belongsToMany relation.`);
  const { target } = relation;
  if (target.keyColumns.length !== 1 || target.primaryKey === undefined)
    throw new ConfigurationError(
      `${where}: "${target.name}" has a composite key, which a list of keys cannot name.`,
    );
  const key = target.columns.get(relation.childKey);
  if (!key || key.hidden)
    throw new ConfigurationError(`${where}: the related key "${relation.childKey}" is not a visible column.`);
  const parent = resource.columns.get(relation.parentKey);
  if (relation.parentKey !== resource.primaryKey && (!parent || parent.hidden))
    throw new ConfigurationError(`${where}: the parent key "${relation.parentKey}" is not a visible column.`);
  const maxItems = declaration.maxItems ?? DEFAULT_MAX_REFERENCES;
  if (!Number.isInteger(maxItems) || maxItems < 1)
    throw new ConfigurationError(`${where}: maxItems must be a whole number of at least 1.`);
  return { relation, key, maxItems };
}

export function prepareInputs(resource: ResolvedResource, inputs: readonly InputDeclaration[]): FormInput[] {
  return inputs.map((declaration): FormInput => {
    if (declaration.type === 'references') return { declaration, link: linkTarget(resource, declaration) };
    if (declaration.relation !== undefined || declaration.maxItems !== undefined)
      throw new ConfigurationError(
        `Form of "${resource.name}": input "${declaration.name}" takes relation and maxItems only as a references input.`,
      );
    const column = resource.columns.get(declaration.column ?? declaration.name);
    if (!column)
      throw new ConfigurationError(
        `Form of "${resource.name}": input "${declaration.name}" writes unknown column "${declaration.column ?? declaration.name}".`,
      );
    if (column.hidden && declaration.type !== 'password')
      throw new ConfigurationError(
        `Form of "${resource.name}": input "${declaration.name}" writes a hidden column.`,
      );
    if (column.generated)
      throw new ConfigurationError(
        `Form of "${resource.name}": input "${declaration.name}" writes "${column.name}", which the database computes (generated).`,
      );
    if (resource.keyColumns.includes(column.name))
      throw new ConfigurationError(
        `Form of "${resource.name}": input "${declaration.name}" writes the primary key.`,
      );
    if (declaration.type === 'select' && !declaration.options?.length)
      throw new ConfigurationError(
        `Form of "${resource.name}": select "${declaration.name}" has no options.`,
      );
    return { declaration, column };
  });
}

const textTypes = new Set<InputDeclaration['type']>(['text', 'email', 'password', 'textarea']);

/**
 * The shortest and longest value a text input accepts, in characters (others are short by nature):
 * what validation enforces and what the OpenAPI document states.
 */
export function textLengths(input: Pick<InputDeclaration, 'type' | 'minLength' | 'maxLength'>): {
  min: number;
  max: number;
} {
  return {
    min: input.minLength ?? (input.type === 'password' ? 8 : 0),
    max: input.maxLength ?? defaultMaxLength[input.type] ?? 255,
  };
}

/**
 * The largest PATCH body a form can need, in bytes: every text input at its maximum length, each
 * character at its longest JSON form (`\uXXXX`, 6 bytes), plus room for the other inputs and the
 * syntax. A fixed limit refused a textarea at its documented 65,535 characters.
 */
export function bodyLimit(inputs: readonly FormInput[]): number {
  let bytes = 16 * 1024;
  for (const { declaration, link } of inputs)
    bytes += link
      ? link.maxItems * 256 + 64
      : textTypes.has(declaration.type)
        ? textLengths(declaration).max * 6 + 64
        : 1024;
  return bytes;
}

/** `1e-7` → `0.0000001`: JSON numbers in their shortest form, without an exponent, to count decimals. */
function plainDecimal(value: number): string {
  const text = String(Math.abs(value));
  const match = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`;
  const point = whole.length + Number(exponent);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${digits}${'0'.repeat(point - digits.length)}`;
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * A number a decimal column cannot take: out of its range (`numeric(precision, scale)` when declared,
 * else ±10^15), or with more decimals than its scale — refused, not rounded: a stored value is never
 * one the client did not send. The same answer on every engine.
 */
function decimalProblem(column: ResolvedColumn, value: number): string | undefined {
  const { min, max, text } = decimalRange(column);
  if (value < min || value > max) return `be between -${text} and ${text}`;
  const { precision, scale = 0 } = column;
  if (precision === undefined) return undefined;
  const [, fraction = ''] = plainDecimal(value).split('.');
  if (fraction.replace(/0+$/, '').length > scale)
    return scale === 0 ? 'be a whole number' : `have at most ${scale} decimal place${scale === 1 ? '' : 's'}`;
  return undefined;
}

const isEmpty = (value: unknown) => value === null || value === undefined || value === '';

/**
 * Validates a PATCH (or create) body against the form: only inputs may be written (no mass
 * assignment), an omitted required input is fine on PATCH and refused on create, one sent empty is
 * refused, and an input hidden by `visibleWhen` (evaluated on the stored record merged with the body)
 * is neither required nor saved. Every problem is reported, keyed by the field name.
 */
export async function planUpdate(
  body: Record<string, unknown>,
  inputs: readonly FormInput[],
  stored: ResourceRecord,
  dialect: SqlDialect,
  errors: ErrorBag,
  mode: 'create' | 'update' = 'update',
): Promise<UpdatePlan> {
  const byName = new Map(inputs.map((input) => [input.declaration.name, input]));
  for (const name of Object.keys(body))
    if (!byName.has(name)) errors.add(name, `The field "${name}" cannot be ${mode}d.`);
  const merged: Record<string, unknown> = { ...stored, ...body };
  const values: Record<string, unknown> = {};
  const links = new Map<string, unknown[]>();
  for (const input of inputs) {
    if (input.link) {
      planLinks(body, input.declaration, input.link, merged, dialect, errors, mode, links);
      continue;
    }
    const { declaration, column } = input;
    const { name } = declaration;
    const label = declaration.label ?? name;
    if (!isVisible(declaration.visibleWhen, merged)) {
      // Hidden: neither required nor saved; a value sent all the same must still be one the input
      // takes, as the document's body schema says (empty is left alone: a form may clear what it hides).
      const sent = body[name];
      if (Object.hasOwn(body, name) && !isEmpty(sent)) {
        const checked = checkValue(declaration, column, sent, label);
        if (typeof checked === 'string') errors.add(name, checked);
      }
      continue;
    }
    if (!Object.hasOwn(body, name)) {
      // On create a required input must be there; an omitted optional one is the database's default.
      if (mode === 'create' && declaration.required) errors.add(name, `The ${label} field is required.`);
      continue;
    }
    const value = body[name];
    if (isEmpty(value)) {
      // Empty clears the column (NULL), which a NOT NULL column cannot be: refused here, named.
      if (declaration.required) errors.add(name, `The ${label} field is required.`);
      else if (declaration.type === 'password') continue;
      else if (!column.nullable) errors.add(name, `The ${label} field cannot be empty.`);
      else values[column.name] = null;
      continue;
    }
    const checked = checkValue(declaration, column, value, label);
    if (typeof checked === 'string') {
      errors.add(name, checked);
      continue;
    }
    values[column.name] =
      declaration.type === 'password'
        ? await hashPassword(checked.value as string)
        : bind(column, checked.value, dialect);
  }
  return { values, links };
}

/**
 * A `references` input's set: an array of the related records' keys, each of the related key's kind
 * (a number or its text for an integer key, a UUID's text…), none twice, at most `maxItems`; empty
 * clears the links; `null` and any other shape are refused. Whether each key names a record this
 * context may link to is the write's to check, in its transaction (`core/records.ts`).
 */
function planLinks(
  body: Record<string, unknown>,
  declaration: InputDeclaration,
  link: LinkTarget,
  merged: Record<string, unknown>,
  dialect: SqlDialect,
  errors: ErrorBag,
  mode: 'create' | 'update',
  links: Map<string, unknown[]>,
): void {
  const { name } = declaration;
  const label = declaration.label ?? name;
  const sent = Object.hasOwn(body, name);
  const shown = isVisible(declaration.visibleWhen, merged);
  if (!sent) {
    if (shown && mode === 'create' && declaration.required)
      errors.add(name, `The ${label} field is required.`);
    return;
  }
  const value = body[name];
  const target = link.relation.target.name;
  if (!Array.isArray(value)) {
    errors.add(name, `The ${label} field must be a list of ${target} ids (an empty list clears it).`);
    return;
  }
  if (value.length > link.maxItems) {
    errors.add(name, `The ${label} field must not have more than ${link.maxItems} items.`);
    return;
  }
  const keys: unknown[] = [];
  const seen = new Set<string>();
  const problems = new Set<string>();
  for (const item of value) {
    const coerced =
      typeof item === 'number' || typeof item === 'string'
        ? coerceForColumn(link.key, String(item))
        : undefined;
    if (!coerced?.ok) {
      problems.add(
        `The ${label} field must hold ${target} ids, each ${coerced ? coerced.expected : 'a number or a string'}.`,
      );
      continue;
    }
    const text = String(coerced.value);
    if (seen.has(text)) {
      problems.add(`The ${label} field names ${target} ${text} more than once.`);
      continue;
    }
    seen.add(text);
    keys.push(dialect.kinds[link.key.type]?.bind?.(coerced.value) ?? coerced.value);
  }
  for (const problem of problems) errors.add(name, problem);
  if (problems.size > 0) return;
  // Hidden by visibleWhen: checked, not saved.
  if (!shown) return;
  if (keys.length === 0 && declaration.required) {
    errors.add(name, `The ${label} field is required.`);
    return;
  }
  links.set(link.relation.name, keys);
}

function checkValue(
  input: InputDeclaration,
  column: ResolvedColumn,
  value: unknown,
  label: string,
): { value: unknown } | string {
  switch (input.type) {
    case 'checkbox':
    case 'switch':
      return typeof value === 'boolean' ? { value } : `The ${label} field must be true or false.`;
    case 'select':
      return input.options?.some((option) => option.value === value)
        ? { value }
        : `The ${label} field must be one of: ${input.options?.map((option) => option.value).join(', ')}.`;
    case 'date': {
      const date = coerceDate(typeof value === 'string' ? value : '');
      return date.ok ? { value: date.value } : `The ${label} field must be ${date.expected}.`;
    }
    case 'number': {
      // A decimal with a scale is also taken as its exact text ("1234.50"), bound as written.
      const exact = column.type === 'decimal' ? decimalTextPattern(column) : undefined;
      if (exact && typeof value === 'string') {
        if (new RegExp(exact).test(value)) return { value };
        const { text } = decimalRange(column);
        return `The ${label} field must be a decimal between -${text} and ${text} with at most ${column.scale} decimal place${column.scale === 1 ? '' : 's'}, as a number or as text ("12.50").`;
      }
      if (typeof value !== 'number' || !Number.isFinite(value)) return `The ${label} field must be a number.`;
      if (column.type === 'decimal') {
        const problem = decimalProblem(column, value);
        return problem ? `The ${label} field must ${problem}.` : { value };
      }
      const result = coerceForColumn(column, String(value));
      return result.ok ? { value: result.value } : `The ${label} field must be ${result.expected}.`;
    }
    default: {
      if (typeof value !== 'string') return `The ${label} field must be a string.`;
      if (value.includes('\u0000')) return `The ${label} field contains a NUL character.`;
      const { min, max } = textLengths(input);
      if (value.length > max) return `The ${label} field must not be longer than ${max} characters.`;
      if (value.length < min) return `The ${label} field must be at least ${min} characters.`;
      if (input.type === 'email' && !emailPattern.test(value))
        return `The ${label} field must be a valid email address, with a dot in its domain (name@example.com).`;
      if (kinds[column.type].checksWrites) {
        const result = coerceForColumn(column, value);
        return result.ok ? { value: result.value } : `The ${label} field must be ${result.expected}.`;
      }
      return { value };
    }
  }
}

/** A validated value in the form the column's database stores. */
function bind(column: ResolvedColumn, value: unknown, dialect: SqlDialect): unknown {
  if (column.type === 'boolean') return storedBoolean(column.storage, dialect, value === true);
  if (column.type === 'json') return JSON.stringify(value);
  return dialect.kinds[column.type]?.bind?.(value as Scalar) ?? value;
}
