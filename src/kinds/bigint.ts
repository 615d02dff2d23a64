import { myIntegers, pgNumbers } from './engine-types.js';
import { isIntegerText } from './integer.js';
import { fail, type Kind, ok } from './kind.js';
import { orderOperators } from './operators.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * A 64-bit integer answered as the string of its digits, so that values past 2^53 (snowflake ids, byte
 * counters) are never rounded by a JSON parser. Compared exactly on every engine: bound as text where
 * the engine converts it exactly, as the dialect says otherwise (`SqlDialect.kinds`).
 */
export const bigint: Kind = {
  label: 'bigint',
  operators: orderOperators,
  ordered: true,
  checksWrites: true,
  coerce: (_column, text) => {
    if (!isIntegerText(text) || text.length > 20) return fail('a whole number of at most 19 digits');
    const value = BigInt(text);
    if (value < INT64_MIN || value > INT64_MAX)
      return fail(`a whole number between ${INT64_MIN} and ${INT64_MAX}`);
    return ok(value.toString());
  },
  read: (value) => (value === null || value === undefined ? null : String(value)),
  schema: () => ({ type: 'string', pattern: '^-?[0-9]{1,19}$', description: 'A 64-bit integer.' }),
  table: 'number',
  input: 'text',
  options: [],
  serves: { postgres: pgNumbers, mysql: [...myIntegers, 'decimal', 'numeric'] },
};
