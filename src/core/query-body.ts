import { RequestError } from '../errors/request-error.js';
import type { ServiceRequest } from './exchange.js';
import { parseJsonBody } from './json-body.js';

/**
 * The largest body a query may come in: the query itself is held to the endpoint's `maxQueryLength`
 * (by the parser, as in a URL); this bounds what is read to find it, JSON escapes included.
 */
export const queryBodyLimit = (maxQueryLength: number): number => maxQueryLength * 6 + 1024;

const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * The query string of a list request sent in its body, for a query too long for a URL (proxies refuse
 * URLs past about 8 KB with 414). Two forms:
 *
 * - `POST <list>/query` with `Content-Type: application/json` and `{"query": "<query string>"}`.
 *   JSON, because a page of another site can make a browser POST only what a form sends
 *   (`application/x-www-form-urlencoded`, `multipart/form-data`, `text/plain`) without asking the
 *   service first (a CORS preflight): JSON is what a form cannot send, the same rule as the writes'.
 * - `QUERY <list>` (the HTTP method for a safe request with a body) with the query string itself as
 *   an `application/x-www-form-urlencoded` body, or the same JSON. QUERY is not a method a form or a
 *   simple request can use, so every cross-site QUERY is preflighted whatever its body.
 *
 * The URL's own query string must then be empty: one request, one query.
 */
export async function queryFromBody(
  request: ServiceRequest,
  urlQuery: string,
  limit: number,
): Promise<string> {
  const contentType = String(request.headers['content-type'] ?? '');
  const form = request.method === 'QUERY' && FORM.test(contentType);
  if (!form && !JSON_TYPE.test(contentType))
    throw RequestError.single(
      415,
      'body',
      request.method === 'QUERY'
        ? 'The query must be sent as application/x-www-form-urlencoded (the query string) or application/json ({"query": "…"}).'
        : 'The query must be sent as JSON (Content-Type: application/json): {"query": "…"}.',
    );
  if (urlQuery !== '')
    throw RequestError.single(
      422,
      'query',
      'The query is in the body: the URL must have no query string of its own.',
    );
  const raw = request.body ? await request.body(limit) : '';
  if (form) {
    // The host's own form parser (Express's `urlencoded()`) read it into an object, with its own limits
    // and reshaping: the query string itself is gone, and guessing it back could change its meaning.
    if (typeof raw !== 'string')
      throw RequestError.single(
        415,
        'body',
        'The application parsed this form body before the service: send the query as application/json ({"query": "…"}), or mount the service before the form parser.',
      );
    return raw;
  }
  const value = typeof raw === 'string' ? parseJsonBody(raw) : raw.parsed;
  const query = (value as { query?: unknown } | null)?.query;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof query !== 'string')
    throw RequestError.single(
      422,
      'body',
      'The body must be a JSON object whose "query" is the query string, as it would follow "?" in the URL.',
    );
  const others = Object.keys(value).filter((key) => key !== 'query');
  if (others.length > 0)
    throw RequestError.single(422, 'body', `Only "query" is read from the body, not ${others.join(', ')}.`);
  return query.startsWith('?') ? query.slice(1) : query;
}
