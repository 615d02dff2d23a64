import { myBinary, myNumbers, myTemporal, myText, pgNumbers, pgTemporal, pgText } from './engine-types.js';
import { type Kind, ok } from './kind.js';
import { orderOperators, textOperators } from './operators.js';

/** Text: any engine type reads as text, so `string` is accepted over every column. */
export const string: Kind = {
  label: 'string',
  operators: [...orderOperators, ...textOperators],
  ordered: true,
  checksWrites: false,
  coerce: (_column, text) => ok(text),
  schema: () => ({ type: 'string' }),
  table: 'text',
  input: 'text',
  options: [],
  serves: {
    postgres: [
      ...pgNumbers,
      'bool',
      ...pgText,
      ...pgTemporal,
      'time',
      'timetz',
      'interval',
      'json',
      'jsonb',
      'uuid',
      'bytea',
      'inet',
      'cidr',
      'macaddr',
      'macaddr8',
      'money',
      'xml',
    ],
    mysql: [...myNumbers, ...myText, 'enum', 'set', 'time', ...myTemporal, 'json', ...myBinary, 'uuid'],
  },
  declaredFor: {
    postgres: ['text', 'varchar', 'bpchar', 'timetz', 'macaddr', 'macaddr8', 'xml'],
    mysql: myText,
  },
};
