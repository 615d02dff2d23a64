import { ErrorBag } from '../errors/error-bag.js';
import { RequestError } from '../errors/request-error.js';
import type { WatchedTopic } from '../live/hub.js';
import type { LiveService } from '../live/live-service.js';
import type { CompiledEndpoint } from '../plan/endpoint.js';
import { coerceForColumn } from '../plan/values.js';
import { parseTopic } from '../request/live.js';
import type { AccessCheck } from './access.js';
import type { ServiceRequest, ServiceResponse } from './exchange.js';

/** What the live route needs of each endpoint: the endpoint and its list and read access checks. */
export interface LiveTarget {
  readonly endpoint: CompiledEndpoint;
  readonly list: AccessCheck;
  readonly read: AccessCheck;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // nginx buffers a proxied response unless told not to: events would wait for its buffer to fill.
  'x-accel-buffering': 'no',
} as const;

/**
 * `GET <prefix>/live?topic=…`: one Server-Sent Events stream for every topic of a tab. Each topic is
 * checked as its endpoint's list (a list's topic) or read (a record's) would be, so a stream opens only
 * with topics its caller may read; every problem is answered at once, keyed `topic` or `last_event_id`.
 */
export function liveRoute(live: LiveService, targets: ReadonlyMap<string, LiveTarget>) {
  return async (request: ServiceRequest, ctx: unknown, rawQuery: string): Promise<ServiceResponse> => {
    const query = new URLSearchParams(rawQuery);
    const errors = new ErrorBag();
    for (const name of new Set(query.keys()))
      if (name !== 'topic' && name !== 'last_event_id')
        errors.add(name, `Unknown parameter "${name}": a live stream takes topic and last_event_id.`);
    const names = [...new Set(query.getAll('topic'))];
    if (names.length === 0)
      errors.add('topic', 'Name at least one topic: topic=resource/<endpoint> or resource/<endpoint>/<id>.');
    if (names.length > live.settings.maxTopics)
      errors.add(
        'topic',
        `A stream carries at most ${live.settings.maxTopics} topics; this one names ${names.length}.`,
      );
    const header = request.headers['last-event-id'];
    const lastId = query.get('last_event_id') ?? (Array.isArray(header) ? header[0] : header);
    const resumeFrom = lastId === undefined || lastId === '' ? undefined : Number(lastId);
    if (resumeFrom !== undefined && !(Number.isSafeInteger(resumeFrom) && resumeFrom >= 0))
      errors.add(
        'last_event_id',
        'The last event id must be the id of an event this stream sent (a whole number).',
      );
    const topics: WatchedTopic[] = [];
    const checks: Promise<void>[] = [];
    for (const name of names.slice(0, live.settings.maxTopics)) {
      const parsed = parseTopic(name);
      const target = parsed && targets.get(parsed.path);
      if (!parsed || !target) {
        errors.add(
          'topic',
          `"${name}" is no topic: resource/<endpoint> or resource/<endpoint>/<id>, for an endpoint served here.`,
        );
        continue;
      }
      const { endpoint } = target;
      const { resource } = endpoint;
      // Access as the route the topic stands for: a record's is a read, a list's a list.
      const check = (parsed.id === undefined ? target.list : target.read)(ctx);
      if (check) checks.push(check);
      const keyColumn = resource.primaryKey ? resource.columns.get(resource.primaryKey) : undefined;
      const idOf = (key: string): unknown => {
        const coerced = keyColumn ? coerceForColumn(keyColumn, key) : undefined;
        return coerced?.ok ? coerced.value : key;
      };
      let key: string | undefined;
      if (parsed.id !== undefined) {
        const coerced = keyColumn ? coerceForColumn(keyColumn, parsed.id) : undefined;
        // An id its key's kind cannot hold names no record: it will never change.
        key = coerced?.ok ? String(coerced.value) : parsed.id;
      }
      topics.push({
        topic: name,
        table: resource.table,
        viewer: live.viewer(resource, endpoint.policy, ctx),
        ...(key !== undefined && { key }),
        idOf,
      });
    }
    // Access first: who may not read an endpoint learns nothing more of its topics than a 401 or 403.
    await Promise.all(checks);
    if (!errors.isEmpty) throw new RequestError(422, errors.toEnvelope());
    const stream = await live.open(topics, ctx, resumeFrom, (end) => {
      if (request.signal?.aborted) end();
      else request.signal?.addEventListener('abort', end, { once: true });
    });
    return { status: 200, headers: SSE_HEADERS, body: stream };
  };
}
