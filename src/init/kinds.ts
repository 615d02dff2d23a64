import { declaredKind } from '../kinds/index.js';
import type { ColumnType, DatetimeStorage } from '../resource/types.js';
import { quotedValues } from '../sql/catalog.js';
import type { DialectName } from '../sql/dialect.js';
import { datetimeShape, type StorageFamily } from './datetime-storage.js';
import type { ColumnModel, SampleValue } from './model.js';
import { snakeCase } from './names.js';

/**
 * Engine type → column kind. Each engine names its types its own way (and SQLite barely types at all:
 * its sampled values decide), so each has its own mapping; a type with no kind is skipped with a reason
 * that the generated comment shows.
 */
interface Kind {
  type: ColumnType;
  big?: boolean;
  precision?: number;
  scale?: number;
  /** Enum and set columns: their values, from the catalog. */
  values?: string[];
  storage?: DatetimeStorage;
  /** SQLite: a datetime-looking column without values to tell its storage. */
  pendingStorage?: StorageFamily;
  notes: string[];
}

/** A column's kind, or why it has none. */
export function columnKind(dialect: DialectName, column: ColumnModel): Kind | { skip: string } {
  if (dialect === 'postgres') return postgresKind(column);
  if (dialect === 'mysql') return mysqlKind(column);
  return sqliteKind(column);
}

function postgresKind(column: ColumnModel): Kind | { skip: string } {
  const base = column.baseType;
  if (column.json) return { type: 'json', notes: [] };
  if (column.category === 'A') return { type: 'array', notes: ['an array: answered as a JSON array'] };
  if (column.category === 'E')
    return column.values && column.values.length > 0
      ? { type: 'enum', values: column.values, notes: [] }
      : { type: 'string', notes: ['an enum whose values could not be read'] };
  switch (base) {
    case 'int8':
      return { type: 'integer', big: true, notes: [] };
    case 'numeric':
      return decimal(column);
    case 'citext':
      return { type: 'string', notes: ['citext: compared case-insensitively'] };
    case 'tsvector':
    case 'tsquery':
      return { skip: 'full-text search values have no column kind' };
  }
  const type = declaredKind('postgres', base);
  if (type) return { type, notes: [] };
  // Other text types (a domain over text, a custom string type) read as text.
  if (column.category === 'S') return { type: 'string', notes: [] };
  return { skip: `no column kind for type ${base}` };
}

function mysqlKind(column: ColumnModel): Kind | { skip: string } {
  const base = column.baseType;
  const type = column.type.toLowerCase();
  if (column.json && base !== 'json') return { type: 'json', notes: ['JSON: a json_valid check'] };
  switch (base) {
    case 'tinyint':
      if (type.startsWith('tinyint(1)')) return { type: 'boolean', notes: [] };
      break;
    case 'int':
    case 'integer':
      // An unsigned int goes past 2^31.
      if (type.includes('unsigned')) return { type: 'integer', big: true, notes: [] };
      break;
    case 'bigint':
      return { type: 'integer', big: true, notes: [] };
    case 'decimal':
    case 'numeric':
      return decimal(column);
    case 'enum':
    case 'set': {
      const values = quotedValues(column.type);
      return values.length > 0 ? { type: base, values, notes: [] } : { type: 'string', notes: [] };
    }
  }
  const kind = declaredKind('mysql', base);
  if (kind) return { type: kind, notes: [] };
  return { skip: `no column kind for type ${base}` };
}

function decimal(column: ColumnModel): Kind {
  return {
    type: 'decimal',
    ...(column.precision !== undefined && { precision: column.precision }),
    ...(column.precision !== undefined && column.scale !== undefined && { scale: column.scale }),
    notes: [],
  };
}

/** SQLite's type affinity of a declared type (https://www.sqlite.org/datatype3.html, 3.1). */
function affinity(declared: string): 'integer' | 'text' | 'blob' | 'real' | 'numeric' | 'none' {
  const type = declared.toLowerCase();
  if (type.includes('int')) return 'integer';
  if (/char|clob|text/.test(type)) return 'text';
  if (type === '') return 'none';
  if (type.includes('blob')) return 'blob';
  if (/real|floa|doub/.test(type)) return 'real';
  return 'numeric';
}

/** Names that usually hold JSON, checked against the values before a column is called JSON. */
const jsonNames =
  /(^|_)(json|settings|meta|metadata|options|preferences|payload|attributes|properties|config|extra|data)$/;

const dateForm = /^\d{4}-\d{2}-\d{2}$/;
const uuidForm = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function sqliteKind(column: ColumnModel): Kind | { skip: string } {
  const declared = column.type.toLowerCase();
  const name = snakeCase(column.name);
  const samples = column.samples;
  const kind = affinity(declared);
  if (column.json) return { type: 'json', notes: ['JSON: a json_valid check'] };
  if (declared.includes('json')) return { type: 'json', notes: [] };
  if (declared === 'boolean' || declared === 'bool' || /^tinyint\(1\)$/.test(declared))
    return { type: 'boolean', notes: [] };
  if (declared === 'date') return { type: 'date', notes: [] };

  const declaredDatetime = /datetime|timestamp/.test(declared);
  const namedDatetime = /_at$/.test(name) && ['integer', 'text', 'none'].includes(kind);
  if (declaredDatetime || namedDatetime) {
    const shape = datetimeShape(samples ?? []);
    if (shape.storage) return { type: 'datetime', storage: shape.storage, notes: [shape.note] };
    if (shape.other === undefined) {
      // No values: decided with the table's other datetimes (resolvePendingStorage).
      const family = kind === 'integer' ? 'integer' : kind === 'text' ? 'text' : 'any';
      if (family === 'integer') return { type: 'integer', pendingStorage: family, notes: [] };
      return { type: 'datetime', pendingStorage: family, notes: [] };
    }
    if (kind === 'integer') return { type: 'integer', notes: [] };
    return {
      type: 'string',
      notes: [`values like ${JSON.stringify(shape.other)} are in no datetime form the service reads`],
    };
  }

  if (kind === 'integer') {
    if (/^(is|has)_/.test(name)) return { type: 'boolean', notes: ['boolean: named like one'] };
    return { type: 'integer', ...(declared.includes('bigint') && { big: true }), notes: [] };
  }
  if (kind === 'real') return { type: 'decimal', notes: [] };
  if (kind === 'numeric') {
    if (/^(numeric|decimal)/.test(declared)) return decimal(column);
    return { type: 'string', notes: [] };
  }
  if (kind === 'blob') return { type: 'binary', notes: [] };
  // Text, or no declared type: the values decide (JSON objects, numbers).
  const values = samples ?? [];
  if (values.length > 0 && values.every(isJsonText))
    return { type: 'json', notes: [`JSON: ${values.length} sampled values are JSON`] };
  if (values.length > 0 && values.every((value) => typeof value === 'string' && uuidForm.test(value)))
    return { type: 'uuid', notes: [`uuid: ${values.length} sampled values are UUIDs`] };
  if (values.length > 0 && values.every((value) => typeof value === 'string' && dateForm.test(value)))
    return { type: 'date', notes: [`date: ${values.length} sampled values are YYYY-MM-DD`] };
  if (kind === 'none' && values.length > 0 && values.every((value) => typeof value === 'number'))
    return values.every(Number.isInteger) ? { type: 'integer', notes: [] } : { type: 'decimal', notes: [] };
  if (values.length === 0 && jsonNames.test(name))
    return { type: 'string', notes: ['may hold JSON (no values to check): declare it json if so'] };
  return { type: 'string', notes: [] };
}

/** A JSON object or array written as text. */
function isJsonText(value: SampleValue): boolean {
  if (typeof value !== 'string') return false;
  const text = value.trim();
  if (!(text.startsWith('{') && text.endsWith('}')) && !(text.startsWith('[') && text.endsWith(']')))
    return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
