import { RequestError } from '../errors/request-error.js';
import type { ServiceRequest } from './exchange.js';

/**
 * A host name (underscores allowed: container names have them), an IPv4 address or a bracketed IPv6
 * address, with an optional port: nothing else.
 */
const hostHeader =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export interface OriginOptions {
  readonly publicUrl?: string;
  readonly trustedHosts?: readonly string[];
}

/** Host headers already found valid, per set of options (each service's): the checks run once each. */
const MAX_KNOWN_HOSTS = 64;
const knownHosts = new WeakMap<OriginOptions, Set<string>>();

/**
 * The base of page links. Without `publicUrl` it comes from the Host header, which the client writes:
 * a value that is not a plain host[:port] (`evil.example:1@x`), or a host outside `trustedHosts`, is
 * refused rather than copied into every link of the answer.
 */
export function linkBase(options: OriginOptions, request: ServiceRequest): string {
  if (options.publicUrl) return options.publicUrl.replace(/\/$/, '');
  const header = request.headers[':authority'] ?? request.headers.host;
  const host = (Array.isArray(header) ? header[0] : header) ?? '';
  let known = knownHosts.get(options);
  if (!known) {
    known = new Set();
    knownHosts.set(options, known);
  }
  if (!known.has(host)) {
    const name = host.replace(/:\d+$/, '').toLowerCase();
    if (!hostHeader.test(host))
      throw RequestError.single(400, 'host', 'The Host header must be a host name with an optional port.');
    if (options.trustedHosts && !options.trustedHosts.some((trusted) => trusted.toLowerCase() === name))
      throw RequestError.single(400, 'host', `The host "${name}" is not served here.`);
    // Bounded: a client sending a new Host each time is checked each time, and grows nothing.
    if (known.size < MAX_KNOWN_HOSTS) known.add(host);
  }
  return `${request.protocol ?? 'http'}://${host}`;
}
