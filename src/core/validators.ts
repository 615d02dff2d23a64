import { hash } from 'node:crypto';
import { type ServiceRequest, type ServiceResponse, withHeaders } from './exchange.js';

/**
 * A strong ETag of a text: its SHA-1, base64url. The one-shot `crypto.hash`: a `Hash` object per
 * answer cost more than the digest (docs/benchmarks.md).
 */
export function digestTag(text: string): string {
  return `"${hash('sha1', text, 'base64url')}"`;
}

/** The entity tags of an `If-Match` or `If-None-Match` header (`*` stays `*`). */
const tagsOf = (header: string): string[] => header.split(',').map((tag) => tag.trim());

/**
 * Whether `If-Match` names this ETag (`*` matches any existing record). RFC 9110 compares If-Match
 * strongly: a weak tag (`W/"…"`) never matches, since it does not promise the same bytes.
 */
export function ifMatchHolds(ifMatch: string, etag: string): boolean {
  return tagsOf(ifMatch).some((tag) => tag === '*' || tag === etag);
}

/** `W/"x"` and `"x"` are the same tag for If-None-Match, which RFC 9110 compares weakly. */
const opaque = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** Whether `If-None-Match` names this ETag, or is `*` (RFC 9110 §13.1.2). */
function noneMatchFails(ifNoneMatch: string, etag: string): boolean {
  const mine = opaque(etag);
  return tagsOf(ifNoneMatch).some((tag) => tag === '*' || opaque(tag) === mine);
}

/**
 * What a cache may do with an answer the service makes: store it, but ask again each time it is used
 * (`no-cache`), with the ETag to ask with; where the answer depends on who asks, only in that
 * client's own cache (`private`, with `Vary` naming what tells callers apart).
 */
const sharedCaching = { 'cache-control': 'no-cache' } as const;
const personalCaching = { vary: 'Authorization, Cookie', 'cache-control': 'private, no-cache' } as const;

/**
 * Merged Vary values, by the pair merged. Both come from the service's own answers (never from a
 * request), so there are a handful: a list's answer asks for the same merge on every request.
 */
const mergedVary = new Map<string, string>();

function varyOf(existing: string | undefined, names: string): string {
  if (!existing) return names;
  const key = `${existing}\n${names}`;
  const known = mergedVary.get(key);
  if (known !== undefined) return known;
  const have = new Set(existing.split(',').map((name) => name.trim().toLowerCase()));
  const added = names
    .split(',')
    .map((name) => name.trim())
    .filter((name) => !have.has(name.toLowerCase()));
  const merged = added.length === 0 ? existing : `${existing}, ${added.join(', ')}`;
  if (mergedVary.size < 64) mergedVary.set(key, merged);
  return merged;
}

/** The methods of a read: QUERY is GET with its query in the body, as safe and as cacheable. */
const readMethods = new Set(['GET', 'HEAD', 'QUERY']);

/** Headers of an answer that depends on who asks, when it is not a 200 read (an error, a write). */
const personal = { vary: 'Authorization, Cookie', 'cache-control': 'private' } as const;

/**
 * The validators of a read: a 200 to GET, HEAD or QUERY with a whole body gets an ETag (its own, as a
 * record's, or the digest of the body) and its caching headers, and becomes a 304 without a body when
 * `If-None-Match` names that ETag. A streamed body (an unlimited `all=true`) has no ETag: the digest
 * would be known only after the last row is sent. Any other answer only gets `personal`'s headers when
 * the answer depends on who asks.
 */
export function withValidators(
  request: ServiceRequest,
  response: ServiceResponse,
  dependsOnCaller: boolean,
  /** What else the answer depends on (`Accept` for a list), merged into its `Vary` in the same copy. */
  varies?: string,
): ServiceResponse {
  const vary = varies ? varyOf(response.headers.vary, varies) : response.headers.vary;
  const read = readMethods.has(request.method) && response.status === 200;
  if (!read || typeof response.body !== 'string') {
    if (dependsOnCaller)
      return {
        ...response,
        headers: withHeaders(response.headers, personal, { vary: varyOf(vary, personal.vary) }),
      };
    if (vary === undefined || vary === response.headers.vary) return response;
    return { ...response, headers: withHeaders(response.headers, { vary }) };
  }
  const etag = response.headers.etag ?? digestTag(response.body);
  const headers = withHeaders(response.headers, dependsOnCaller ? personalCaching : sharedCaching);
  headers.etag = etag;
  if (dependsOnCaller) headers.vary = varyOf(vary, personalCaching.vary);
  else if (vary) headers.vary = vary;
  const ifNoneMatch = request.headers['if-none-match'];
  if (typeof ifNoneMatch === 'string' && noneMatchFails(ifNoneMatch, etag)) {
    // A 304 carries the headers a 200 would have had, but for the body's own (RFC 9110 §15.4.5).
    const { 'content-type': _type, ...kept } = headers;
    return { status: 304, headers: kept, body: '' };
  }
  // Named rather than spread: the read's answer keeps one shape, request after request.
  return { status: response.status, headers, body: response.body };
}
