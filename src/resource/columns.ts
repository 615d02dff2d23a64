/**
 * One declared column as the service uses it: its options checked (storage conventions, decimal
 * precision and scale) when the configuration is resolved. A new column kind's options are checked here.
 */
import { ConfigurationError } from '../errors/configuration-error.js';
import { arrayElements, columnTypes, kinds } from '../kinds/index.js';
import type {
  BooleanStorage,
  ColumnOptions,
  ColumnType,
  DatetimeStorage,
  ResourceDefinition,
} from './types.js';

export function columnOptions(spec: ColumnType | ColumnOptions): ColumnOptions {
  return typeof spec === 'string' ? { type: spec } : spec;
}

const storages: Partial<Record<ColumnType, readonly string[]>> = {
  datetime: ['native', 'text', 'iso', 'unix-seconds', 'unix-milliseconds'],
  boolean: ['native', 'integer', 'text'],
};

/** A column's storage convention: its own, else the resource's for its kind, else `native`. */
export function storageOf(
  definition: ResourceDefinition,
  name: string,
  options: ColumnOptions,
): DatetimeStorage | BooleanStorage {
  const known = storages[options.type];
  const where = `Resource "${definition.name}": column "${name}"`;
  if (!known) {
    if (options.storage !== undefined)
      throw new ConfigurationError(
        `${where} declares a storage, which only datetime and boolean columns have.`,
      );
    return 'native';
  }
  const resourceWide =
    options.type === 'datetime' ? definition.storage?.datetime : definition.storage?.boolean;
  const storage = options.storage ?? resourceWide ?? 'native';
  if (!known.includes(storage))
    throw new ConfigurationError(
      `${where}: storage "${storage}" is not one of ${known.join(', ')} (for ${options.type} columns).`,
    );
  return storage;
}

export function checkDecimal(resource: string, name: string, options: ColumnOptions): void {
  const { precision, scale } = options;
  if (precision === undefined && scale === undefined) return;
  const where = `Resource "${resource}": column "${name}"`;
  if (options.type !== 'decimal')
    throw new ConfigurationError(`${where}: precision and scale are for decimal columns.`);
  if (precision === undefined || !Number.isInteger(precision) || precision < 1 || precision > 65)
    throw new ConfigurationError(`${where}: precision must be a whole number from 1 to 65.`);
  if (scale !== undefined && (!Number.isInteger(scale) || scale < 0 || scale > precision))
    throw new ConfigurationError(`${where}: scale must be a whole number from 0 to the precision.`);
}

/** The kind exists, and the options only its kind takes are declared where they belong. */
export function checkKindOptions(resource: string, name: string, options: ColumnOptions): void {
  const where = `Resource "${resource}": column "${name}"`;
  if (!Object.hasOwn(kinds, options.type))
    throw new ConfigurationError(
      `${where}: "${String(options.type)}" is not a column kind (one of ${columnTypes.join(', ')}).`,
    );
  const kind = kinds[options.type];
  if (options.of !== undefined) {
    const elements = Object.keys(arrayElements);
    if (!(kind.options as readonly string[]).includes('of'))
      throw new ConfigurationError(`${where}: of (the kind of its elements) is for array columns.`);
    if (!elements.includes(options.of))
      throw new ConfigurationError(
        `${where}: of is the kind of the array's elements, one of ${elements.join(', ')} ("${String(options.of)}" is not).`,
      );
  }
  const takesValues = (kind.options as readonly string[]).includes('values');
  const { values } = options;
  if (!takesValues) {
    if (values !== undefined)
      throw new ConfigurationError(
        `${where}: values are for ${columnTypes.filter((type) => (kinds[type].options as readonly string[]).includes('values')).join(' and ')} columns.`,
      );
    return;
  }
  if (
    !Array.isArray(values) ||
    values.length === 0 ||
    !values.every((value) => typeof value === 'string') ||
    new Set(values).size !== values.length
  )
    throw new ConfigurationError(
      `${where}: a ${options.type} column declares its values, a list of distinct strings (values: ['a', 'b']).`,
    );
}
