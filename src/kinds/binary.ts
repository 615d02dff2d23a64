import { myBinary } from './engine-types.js';
import { fail, type Kind } from './kind.js';
import { nullOperators } from './operators.js';

/** Bytes (`bytea`, `BLOB`, `VARBINARY`), answered in base64; not filtered but for NULL, not edited by forms. */
export const binary: Kind = {
  label: 'binary',
  operators: nullOperators,
  ordered: false,
  checksWrites: false,
  coerce: () => fail('tested only with is_null or is_not_null'),
  read: (value) =>
    value === null || value === undefined
      ? null
      : value instanceof Uint8Array
        ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')
        : String(value),
  schema: () => ({ type: 'string', contentEncoding: 'base64' }),
  table: 'text',
  options: [],
  serves: { postgres: ['bytea'], mysql: myBinary },
  declaredFor: { postgres: ['bytea'], mysql: myBinary },
};
