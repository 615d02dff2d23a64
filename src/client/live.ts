/**
 * Live lists: one Server-Sent Events stream per client (`GET <prefix>/live?topic=…`) carries every
 * topic its subscribers want; the stream is read with `fetch` (EventSource cannot send Authorization)
 * and parsed by `sse.ts`. Events name ids, never rows: a subscriber refetches what it shows.
 *
 * The stream follows its subscribers: topics added or dropped within `debounceMs` reopen it once,
 * resuming from the last event id; it closes when no topic is left. A dropped connection is resumed
 * with backoff (from the server's `retry:`); `end` is followed at once (`expired`, with headers asked
 * again) or after `retry:` (`shutdown`, maybe to another instance). A refusal at open (4xx) is told to
 * the subscribers and not retried until the topic set changes or `reconnect()` is called: the same
 * request would be refused again.
 */
import { type LiveChange, type LiveChangeType, type LiveReset, parseTopic } from '../request/live.js';
import { ApiError, type ErrorEnvelope } from './calls.js';
import { type SseEvent, SseParser } from './sse.js';

export {
  type LiveChange,
  type LiveChangeType,
  type LiveReset,
  parseTopic,
  topicOf,
} from '../request/live.js';

/** What a subscriber of one topic hears. */
export type LiveEvent =
  | {
      readonly kind: 'change';
      readonly topic: string;
      readonly type: LiveChangeType;
      /** The records' keys as the list answers them. */
      readonly ids: readonly unknown[];
    }
  | {
      /** What the topic shows may have changed in ways the stream cannot tell: refetch all of it. */
      readonly kind: 'reset';
      readonly topic: string;
      readonly reason: LiveReset['reason'];
    };

export interface LiveSubscriber {
  onEvent(event: LiveEvent): void;
  /**
   * The stream was refused at open: 401/403 (access), 404 (the service has no live route), 422 (a
   * topic that is not live, too many topics), 429 (too many streams; retried later all the same).
   */
  onError?(error: ApiError): void;
  /**
   * A stream carrying this topic is open: once, then after each reconnection (where the server has
   * sent, or will send, what happened meanwhile).
   */
  onOpen?(): void;
}

/** Headers of each opening; a function is called every time (a token that is refreshed). */
export type LiveHeaders =
  | Readonly<Record<string, string>>
  | (() => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>);

export interface LiveOptions {
  /** `http://127.0.0.1:3000`; default `''` (same origin). */
  baseUrl?: string;
  /** The service's prefix; default `/api`. */
  prefix?: string;
  fetch?: typeof fetch;
  headers?: LiveHeaders;
  /** How long topic changes are gathered before the stream is reopened; default 50 ms. */
  debounceMs?: number;
  /** The wait before reconnecting until the server says (`retry:`); default 1 s. */
  retryMs?: number;
  /** The longest wait between attempts to reconnect; default 30 s. */
  maxRetryMs?: number;
  /**
   * Silence after which a connection is taken for dead and reopened (the server pings every ~15 s,
   * but a connection lost without a FIN is never reported by the network); default 45 s, 0: never.
   */
  idleMs?: number;
}

export interface LiveClient {
  /** Listens to one topic (`resource/<path>` or `resource/<path>/<id>`); the function unsubscribes. */
  subscribe(topic: string, subscriber: LiveSubscriber | ((event: LiveEvent) => void)): () => void;
  /** Opens the stream again now, forgetting refusals (after a sign-in, say). */
  reconnect(): void;
  /** Drops every subscription and closes the stream. */
  close(): void;
}

interface Entry {
  readonly subscriber: LiveSubscriber;
}

/** The stream wanted for one topic set: connecting, open, or waiting to reconnect. */
interface Stream {
  readonly topics: readonly string[];
  readonly key: string;
  /** The connection in progress; a callback of an aborted one finds it replaced and does nothing. */
  controller: AbortController | undefined;
  open: boolean;
  /** A 401 was answered once already by asking the headers again. */
  reauthorized: boolean;
}

const DEFAULT_RETRY_MS = 1000;
const changeTypes: ReadonlySet<string> = new Set<LiveChangeType>(['created', 'updated', 'deleted']);
const resetReasons: ReadonlySet<string> = new Set<LiveReset['reason']>(['expired', 'rate', 'late']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function json(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/** A frame the client does not understand is skipped: the stream goes on. */
function changeOf(data: string): LiveChange | undefined {
  const value = json(data);
  if (!isObject(value)) return undefined;
  const { topic, type, ids } = value;
  if (typeof topic !== 'string' || typeof type !== 'string' || !changeTypes.has(type) || !Array.isArray(ids))
    return undefined;
  return { topic, type: type as LiveChangeType, ids };
}

function resetOf(data: string): LiveReset | undefined {
  const value = json(data);
  if (!isObject(value)) return undefined;
  const { topics, reason } = value;
  if (!Array.isArray(topics) || !topics.every((topic) => typeof topic === 'string')) return undefined;
  // A reason this client does not know still means "refetch": it is told as the nearest, `expired`.
  const known = typeof reason === 'string' && resetReasons.has(reason);
  return { topics, reason: known ? (reason as LiveReset['reason']) : 'expired' };
}

async function envelopeOf(response: Response): Promise<ErrorEnvelope> {
  const text = await response.text().catch(() => '');
  const body = json(text);
  if (!isObject(body)) return { message: text || response.statusText, errors: {} };
  const errors = isObject(body.errors) ? (body.errors as ErrorEnvelope['errors']) : {};
  return { message: String(body.message ?? response.statusText), errors };
}

/** `Retry-After` in seconds, as milliseconds (a date form is not worth reading here). */
function retryAfter(response: Response): number {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

const topicChar = /[A-Za-z0-9_~%/-]/;

/** Whether `text` names `topic` as a whole (not `resource/users` inside `resource/users/7`). */
function mentions(text: string, topic: string): boolean {
  for (let at = text.indexOf(topic); at !== -1; at = text.indexOf(topic, at + 1)) {
    const before = text[at - 1];
    const after = text[at + topic.length];
    // A dot continues a topic (`resource/files/a.txt`) unless it ends the sentence.
    const afterDot = after === '.' && topicChar.test(text[at + topic.length + 1] ?? ' ');
    if (
      (before === undefined || !topicChar.test(before)) &&
      (after === undefined || (!topicChar.test(after) && !afterDot))
    )
      return true;
  }
  return false;
}

/**
 * The topics a 422 names, by the index of its `topic` parameter (`topic.2`, `topic[2]`) or in its
 * messages: those alone are dropped, so one topic that is not live does not stop the others.
 */
function refusedTopics(envelope: ErrorEnvelope, topics: readonly string[]): string[] {
  const found = new Set<string>();
  for (const [key, messages] of Object.entries(envelope.errors)) {
    const index = /^topic(?:\.(\d+)|\[(\d+)\])$/.exec(key);
    const named = index ? topics[Number(index[1] ?? index[2])] : undefined;
    if (named !== undefined) found.add(named);
    for (const topic of topics) if (messages.some((message) => mentions(message, topic))) found.add(topic);
  }
  return [...found];
}

/** How long a client that watches nothing keeps its position for the next stream it opens. */
const KEEP_POSITION_MS = 30_000;

/** Reports an exception of a subscriber where the platform reports uncaught ones, without stopping the others. */
function guarded(call: () => void): void {
  try {
    call();
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

export function createLiveClient(options: LiveOptions = {}): LiveClient {
  const doFetch = options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
  const base = `${(options.baseUrl ?? '').replace(/\/$/, '')}${(options.prefix ?? '/api').replace(/\/$/, '')}/live`;
  const debounceMs = options.debounceMs ?? 50;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  const idleMs = options.idleMs ?? 45_000;

  const subscriptions = new Map<string, Set<Entry>>();
  /** Topics a 422 named: left out of the stream while they have subscribers. */
  const refused = new Map<string, ApiError>();
  /** The service has no live route (404, or an answer that is not an event stream). */
  let unavailable: ApiError | undefined;
  /** A topic set refused at open: not asked for again until the set changes. */
  let failed: { key: string; error: ApiError } | undefined;
  let current: Stream | undefined;
  let lastId = '';
  /** Since when no topic has been watched (the position is kept for `KEEP_POSITION_MS`). */
  let idleSince: number | undefined;
  let retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  let failures = 0;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;

  const entriesOf = (topics: Iterable<string>): Entry[] =>
    [...topics].flatMap((topic) => [...(subscriptions.get(topic) ?? [])]);

  const deliver = (event: LiveEvent) => {
    for (const { subscriber } of entriesOf([event.topic])) guarded(() => subscriber.onEvent(event));
  };
  const report = (topics: Iterable<string>, error: ApiError) => {
    for (const { subscriber } of entriesOf(topics)) guarded(() => subscriber.onError?.(error));
  };

  const url = (topics: readonly string[]) =>
    `${base}?${topics.map((topic) => `topic=${encodeURIComponent(topic)}`).join('&')}`;

  const headers = async (): Promise<Record<string, string>> => {
    const given = typeof options.headers === 'function' ? await options.headers() : options.headers;
    return {
      accept: 'text/event-stream',
      ...given,
      ...(lastId !== '' ? { 'last-event-id': lastId } : {}),
    };
  };

  const clearTimer = (timer: ReturnType<typeof setTimeout> | undefined) => {
    if (timer !== undefined) clearTimeout(timer);
  };

  /** Ends the connection of `stream` (if any); whatever it was doing is dropped. */
  const disconnect = (stream: Stream) => {
    stream.controller?.abort();
    stream.controller = undefined;
    stream.open = false;
    clearTimer(idleTimer);
    idleTimer = undefined;
  };

  const stop = () => {
    clearTimer(retryTimer);
    retryTimer = undefined;
    if (current) disconnect(current);
    current = undefined;
  };

  const reconnectAfter = (stream: Stream, delay: number) => {
    disconnect(stream);
    clearTimer(retryTimer);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      if (current === stream) void connect(stream);
    }, delay);
  };

  /** Exponential from the server's `retry:`, with jitter so that clients cut off together do not return together. */
  const retryLater = (stream: Stream, atLeast = 0) => {
    const ceiling = Math.min(maxRetryMs, retryMs * 2 ** failures);
    failures += 1;
    reconnectAfter(stream, Math.max(atLeast, ceiling / 2 + (Math.random() * ceiling) / 2));
  };

  const armIdle = (stream: Stream, controller: AbortController) => {
    clearTimer(idleTimer);
    idleTimer =
      idleMs > 0
        ? setTimeout(() => {
            if (stream.controller === controller) retryLater(stream);
          }, idleMs)
        : undefined;
  };

  const onFrame = (stream: Stream, event: SseEvent, live: () => boolean) => {
    // A subscriber may have closed or reopened the stream while the rest of this chunk was read.
    if (!live()) return;
    lastId = event.lastEventId;
    if (event.event === 'change') {
      const change = changeOf(event.data);
      if (change) deliver({ kind: 'change', topic: change.topic, type: change.type, ids: change.ids });
    } else if (event.event === 'reset') {
      const reset = resetOf(event.data);
      for (const topic of reset?.topics ?? [])
        deliver({ kind: 'reset', topic, reason: reset?.reason ?? 'expired' });
    } else if (event.event === 'end') {
      const reason = (json(event.data) as { reason?: unknown } | undefined)?.reason;
      // `expired`: the token ran out; the headers are asked for again at once. `shutdown` (or a
      // reason not known here): the instance is going; another may take the stream after `retry:`.
      reconnectAfter(stream, reason === 'expired' ? 0 : retryMs / 2 + (Math.random() * retryMs) / 2);
    }
  };

  const refusedAtOpen = async (stream: Stream, response: Response, target: string, live: () => boolean) => {
    const wait = retryAfter(response);
    const envelope = await envelopeOf(response);
    if (!live()) return;
    const { status } = response;
    const error = new ApiError(status, target, envelope);
    if (status === 408 || status === 429 || status >= 500) {
      // Busy or down, not a refusal of this request: asked again later (429 is also told, since the
      // caller's other streams are its cause).
      if (status === 429) report(stream.topics, error);
      retryLater(stream, wait);
      return;
    }
    disconnect(stream);
    // A token may have been refreshed since these headers were read: one more try, no loop.
    if (status === 401 && typeof options.headers === 'function' && !stream.reauthorized) {
      stream.reauthorized = true;
      void connect(stream);
      return;
    }
    if (status === 404) {
      unavailable = error;
      current = undefined;
      report(stream.topics, error);
      return;
    }
    if (status === 422 && lastId !== '' && Object.hasOwn(envelope.errors, 'last_event_id')) {
      // The position is not one the server can resume from: start from now, and say that what
      // happened meanwhile is unknown.
      lastId = '';
      for (const topic of stream.topics) deliver({ kind: 'reset', topic, reason: 'expired' });
      void connect(stream);
      return;
    }
    const named = status === 422 ? refusedTopics(envelope, stream.topics) : [];
    current = undefined;
    if (named.length > 0 && named.length < stream.topics.length) {
      for (const topic of named) refused.set(topic, error);
      report(named, error);
      flush();
      return;
    }
    failed = { key: stream.key, error };
    report(stream.topics, error);
  };

  const connect = async (stream: Stream): Promise<void> => {
    const controller = new AbortController();
    stream.controller = controller;
    const live = () => current === stream && stream.controller === controller;
    const target = url(stream.topics);
    let response: Response;
    try {
      const sent = await headers();
      if (!live()) return;
      response = await doFetch(target, { headers: sent, signal: controller.signal });
    } catch {
      if (live()) retryLater(stream);
      return;
    }
    if (!live()) {
      void response.body?.cancel().catch(() => {});
      return;
    }
    if (!response.ok) return refusedAtOpen(stream, response, target, live);
    const body = response.body;
    if (!body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
      void body?.cancel().catch(() => {});
      disconnect(stream);
      current = undefined;
      unavailable = new ApiError(404, target, {
        message: `${target} answered ${response.status} without an event stream: the service has no live route.`,
        errors: {},
      });
      report(stream.topics, unavailable);
      return;
    }
    failures = 0;
    stream.open = true;
    stream.reauthorized = false;
    for (const { subscriber } of entriesOf(stream.topics)) guarded(() => subscriber.onOpen?.());
    const parser = new SseParser((event) => onFrame(stream, event, live), {
      lastEventId: lastId,
      onRetry: (milliseconds) => {
        retryMs = milliseconds;
      },
    });
    const reader = body.getReader();
    const decoder = new TextDecoder();
    armIdle(stream, controller);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (!live()) break;
        if (done) {
          parser.push(decoder.decode());
          break;
        }
        parser.push(decoder.decode(value, { stream: true }));
        if (!live()) break;
        lastId = parser.lastEventId;
        armIdle(stream, controller);
      }
    } catch {
      // Aborted here, or the connection failed: told apart below by whether it is still wanted.
    }
    if (!live()) {
      void reader.cancel().catch(() => {});
      return;
    }
    // Closed without `end`: resumed from the last id.
    parser.end();
    lastId = parser.lastEventId;
    retryLater(stream);
  };

  const open = (topics: readonly string[], key: string) => {
    stop();
    if (idleSince !== undefined && Date.now() - idleSince > KEEP_POSITION_MS) lastId = '';
    idleSince = undefined;
    current = { topics, key, controller: undefined, open: false, reauthorized: false };
    void connect(current);
  };

  function flush(): void {
    clearTimer(flushTimer);
    flushTimer = undefined;
    if (unavailable) return;
    const topics = [...subscriptions.keys()].filter((topic) => !refused.has(topic)).sort();
    if (topics.length === 0) {
      stop();
      // Kept a while: a page that follows another (a save's redirect, a link) resumes where the last
      // stopped, so a change made between the two is not lost; past that, it starts from its opening.
      idleSince = Date.now();
      failed = undefined;
      return;
    }
    const key = topics.join('\n');
    if (current?.key === key || failed?.key === key) return;
    failed = undefined;
    open(topics, key);
  }

  const schedule = () => {
    flushTimer ??= setTimeout(flush, debounceMs);
  };

  /** What a subscriber of a topic the stream already carries missed: its opening, or its refusal. */
  const catchUp = (topic: string, subscriber: LiveSubscriber) => {
    const error =
      unavailable ??
      refused.get(topic) ??
      (failed && current === undefined && failed.key.split('\n').includes(topic) ? failed.error : undefined);
    const opened = current?.open === true && current.topics.includes(topic);
    if (error || opened)
      queueMicrotask(() => guarded(() => (error ? subscriber.onError?.(error) : subscriber.onOpen?.())));
  };

  return {
    subscribe(topic, given) {
      if (!parseTopic(topic)) throw new TypeError(`"${topic}" is not a live topic (resource/<path>[/<id>]).`);
      const entry: Entry = { subscriber: typeof given === 'function' ? { onEvent: given } : given };
      let entries = subscriptions.get(topic);
      if (entries) catchUp(topic, entry.subscriber);
      else {
        entries = new Set();
        subscriptions.set(topic, entries);
        if (unavailable) catchUp(topic, entry.subscriber);
        else schedule();
      }
      entries.add(entry);
      const own = entries;
      return () => {
        if (!own.delete(entry) || own.size > 0 || subscriptions.get(topic) !== own) return;
        subscriptions.delete(topic);
        refused.delete(topic);
        schedule();
      };
    },

    reconnect() {
      unavailable = undefined;
      failed = undefined;
      refused.clear();
      failures = 0;
      stop();
      flush();
    },

    close() {
      subscriptions.clear();
      refused.clear();
      failed = undefined;
      lastId = '';
      flush();
    },
  };
}
