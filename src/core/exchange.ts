/**
 * What goes into the core and what comes out: plain data, no web framework. Every host (Fastify,
 * Express, Hono, a fetch handler, the standalone server) turns its own request into a
 * `ServiceRequest` and writes the `ServiceResponse` back.
 */

/** Where the service's log lines go (pino's signature: Fastify's `request.log` fits). */
export interface ServiceLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * The body of a request, read only by the routes that take one, with their size limit: raw text
 * (the core parses it as JSON), or `{ parsed }` when the host's own body parser already read it.
 */
export type BodyReader = (limit: number) => Promise<string | { parsed: unknown }>;

/**
 * What the core needs of an `AbortSignal` (a fetch `Request.signal` is one). Node hosts pass
 * `closedBeforeAnswer(response)`: an `AbortController` per request costs ~7 µs, 2 % of a fast list.
 */
export interface ClientSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
}

/** What `closedBeforeAnswer` reads of a Node response. */
interface NodeResponse {
  readonly destroyed: boolean;
  readonly writableFinished: boolean;
  on(event: 'close', listener: () => void): unknown;
}

/**
 * A class, not an object literal with a getter: built per request, the literal (a new accessor and
 * two closures each time) cost about 6 µs of a read-one's CPU under load, the class instance none
 * measurable (docs/benchmarks.md).
 */
class ResponseSignal implements ClientSignal {
  constructor(private readonly response: NodeResponse) {}

  get aborted(): boolean {
    return this.response.destroyed && !this.response.writableFinished;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    const { response } = this;
    // `on`, not `once`: a response closes once, and `once` wraps every listener in a bound function.
    response.on('close', () => {
      if (!response.writableFinished) listener();
    });
  }
}

/** The signal of a Node response: aborted when its connection closes before the answer is written. */
export function closedBeforeAnswer(response: NodeResponse): ClientSignal {
  return new ResponseSignal(response);
}

export interface ServiceRequest<Ctx = unknown> {
  readonly method: string;
  /** Path and query string as received, from the root of the host (`/api/users?sort=name`). */
  readonly url: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** `http` or `https`: with the Host header, the base of page links when `publicUrl` is not set. */
  readonly protocol?: string;
  readonly body?: BodyReader;
  /**
   * The request's context, made by the host (`request.user`…), called once the request is known to
   * be the service's. Without it the configuration's `context` hook runs; without that, undefined.
   */
  readonly context?: () => Ctx | Promise<Ctx>;
  /** Aborted when the client goes away: the database is told to stop the request's statements. */
  readonly signal?: ClientSignal;
  readonly log?: ServiceLogger;
}

export interface ServiceResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text, or JSON text in pieces (an unlimited `all=true` list, streamed). */
  readonly body: string | AsyncIterable<string>;
}

/** A route of the service, for hosts whose router registers each route (Fastify's `:id` syntax). */
export interface ServiceRoute {
  /** The full path (with the prefix); every method reaches the core, which answers 405 where it must. */
  readonly path: string;
  /** The largest body the route reads, in bytes (0: it reads none). */
  readonly bodyLimit: number;
}

/**
 * Headers with more added (later ones win), as a new object. Not `{ ...headers, name: value }`: on
 * Node 20's V8 an object spread followed by a key it did not copy makes a new hidden class on every
 * call — about 0.45 µs each, and garbage for the old generation — where keys stored one by one onto a
 * fresh object follow the cached transitions (docs/benchmarks.md). A loop rather than
 * `Object.assign({}, ...sources)`: spreading the sources into the call showed in profiles too.
 */
export function withHeaders<V extends string | number = string>(
  headers: Readonly<Record<string, V>>,
  added: Readonly<Record<string, V>>,
  more?: Readonly<Record<string, V>>,
): Record<string, V> {
  const merged: Record<string, V> = {};
  for (const name in headers) merged[name] = headers[name] as V;
  for (const name in added) merged[name] = added[name] as V;
  if (more) for (const name in more) merged[name] = more[name] as V;
  return merged;
}

export const JSON_TYPE = 'application/json; charset=utf-8';
const jsonType: Readonly<Record<string, string>> = { 'content-type': JSON_TYPE };

/** A JSON answer. */
export function json(status: number, value: unknown, headers: Record<string, string> = {}): ServiceResponse {
  return jsonText(status, JSON.stringify(value), headers);
}

/** A JSON answer whose text is made already. */
export function jsonText(
  status: number,
  text: string,
  headers: Record<string, string> = {},
): ServiceResponse {
  return { status, headers: withHeaders(jsonType, headers), body: text };
}

/**
 * A 200 JSON answer with its ETag, its headers one literal: the copy loop of `withHeaders` makes
 * megamorphic stores, and this is every read-one's answer.
 */
export function taggedJson(text: string, etag: string): ServiceResponse {
  return { status: 200, headers: { 'content-type': JSON_TYPE, etag }, body: text };
}
