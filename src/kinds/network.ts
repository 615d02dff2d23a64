import { isIP } from 'node:net';
import { myText, pgText } from './engine-types.js';
import { fail, type Kind, ok } from './kind.js';
import { equalityOperators } from './operators.js';

/** An address, or a network in CIDR form (`10.0.0.0/8`). */
function isAddress(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return isIP(text) !== 0;
  const version = isIP(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  return version !== 0 && /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

/** A network address: PostgreSQL's `inet`/`cidr`, MariaDB's `INET4`/`INET6`. */
export const network: Kind = {
  label: 'network address',
  operators: equalityOperators,
  ordered: true,
  checksWrites: true,
  coerce: (_column, text) =>
    isAddress(text) ? ok(text) : fail('an IPv4 or IPv6 address, optionally with a /prefix'),
  schema: () => ({ type: 'string' }),
  table: 'text',
  input: 'text',
  options: [],
  serves: { postgres: ['inet', 'cidr', ...pgText], mysql: ['inet4', 'inet6', ...myText] },
  declaredFor: { postgres: ['inet', 'cidr'], mysql: ['inet4', 'inet6'] },
};
