import { ConfigurationError } from '../errors/configuration-error.js';
import { RequestError } from '../errors/request-error.js';
import type { EndpointPolicy, LiveOptions } from '../resource/policy.js';
import type { ResolvedResource } from '../resource/registry.js';
import type { Connection } from '../sql/connect.js';
import { type ImageQuery, type Viewer, viewerOf } from './audience.js';
import { redisBus } from './bus.js';
import { type ChangeCapture, capturedTable, changeCapture, noCapture } from './capture.js';
import { LiveHub, type WatchedTopic } from './hub.js';
import { ChangeLog } from './log.js';
import { type LiveSettings, liveSettings } from './settings.js';
import { LiveStream } from './stream.js';

/** What the core asks of live streams: each resource's capture, streams opened, and the end. */
export interface LiveService {
  readonly settings: LiveSettings;
  /** How a resource's writes record their changes (nothing where its table's triggers do). */
  capture(resource: ResolvedResource): ChangeCapture;
  /** Who a context is on an endpoint's topics: what it may learn of its resource's changes. */
  viewer(resource: ResolvedResource, policy: EndpointPolicy, ctx: unknown): Viewer;
  /**
   * A stream of `topics` for a context: throws the 429 past `maxStreamsPerCaller`. The stream ends
   * when `departed` fires, when the context's credentials expire, or when the service closes.
   */
  open(
    topics: readonly WatchedTopic[],
    ctx: unknown,
    resumeFrom: number | undefined,
    departed: (end: () => void) => void,
  ): Promise<LiveStream>;
  /** The streams open on this instance. */
  readonly streams: number;
  /** Ends every stream; resolved once their last frames are taken (or a second has passed). */
  close(): Promise<void>;
}

/**
 * Live streams over `connection`: checks at start-up that the change log is there (created by
 * `resource-query-service live setup`, never by the service on its own) and which tables' triggers
 * record their changes.
 */
export async function createLiveService(
  connection: Connection,
  options: LiveOptions,
  resources: Iterable<ResolvedResource>,
  warn: (error: unknown, message: string) => void,
): Promise<LiveService> {
  const settings = liveSettings(options);
  const all = [...resources];
  const { changeLog } = connection.dialect;
  const log = new ChangeLog(connection.db, changeLog, settings.table);
  await log.bounds().catch((error: unknown) => {
    throw new ConfigurationError(
      `Live streams need the change log table "${settings.table}", which could not be read (${error instanceof Error ? error.message : String(error)}). Create it with: resource-query-service live setup --config <module>`,
    );
  });
  const bus = settings.redisUrl ? await redisBus(settings.redisUrl, settings.table, warn) : undefined;
  // The log is pruned by the instances that write or stream, at most once per pruneMs each, outside any
  // request: no timer of its own keeps a process, or a closed connection, busy.
  let pruned = Date.now();
  const prune = () => {
    if (Date.now() - pruned < settings.pruneMs) return;
    pruned = Date.now();
    log.prune(settings.retainMs).catch((error: unknown) => warn(error, 'pruning the change log failed'));
  };
  const committed = () => {
    bus?.publish();
    prune();
  };
  const captures = new Map<ResolvedResource, ChangeCapture>();
  for (const resource of all) {
    const triggered = await changeLog.installed(connection.db, settings.table, resource.table);
    // Where triggers record the changes, the service's writes record nothing but still wake the hubs.
    captures.set(
      resource,
      triggered || !resource.primaryKey
        ? { ...noCapture, committed }
        : changeCapture(resource, changeLog, settings.table, committed),
    );
  }
  // The images read back as rows, for the viewers decided by the database (made for every table: a
  // callback's scope or baseQuery may name any column).
  const imageRows = new Map<ResolvedResource, ImageQuery>();
  for (const resource of all)
    imageRows.set(resource, {
      db: connection.db,
      rows: await changeLog.imageRows(connection.db, capturedTable(resource)),
    });
  const hub = new LiveHub(log, settings, warn, prune);
  bus?.onWake(() => hub.wake());
  const perCaller = new Map<string, number>();
  /** The streams open or opening on this instance. */
  let opened = 0;
  return {
    settings,
    capture: (resource) => captures.get(resource) ?? noCapture,
    viewer: (resource, policy, ctx) =>
      viewerOf(resource, policy, ctx, () => imageRows.get(resource) as ImageQuery),
    get streams() {
      return hub.size;
    },
    async open(topics, ctx, resumeFrom, departed) {
      if (opened >= settings.maxStreams) {
        const message = `This instance holds the most live streams it takes (${settings.maxStreams}): retry later.`;
        throw new RequestError(503, { message, errors: { live: [message] } }, { 'retry-after': '5' });
      }
      // A context that names no caller (an anonymous one) is not counted per caller: it would share
      // one budget with every other anonymous tab. `maxStreams` bounds them all.
      const caller = settings.caller(ctx);
      const held = caller === undefined ? 0 : (perCaller.get(caller) ?? 0);
      if (caller !== undefined && held >= settings.maxStreamsPerCaller) {
        const message = `You have ${held} live streams open here, the most allowed: close one (a tab carries all its topics on one stream).`;
        throw new RequestError(429, { message, errors: { live: [message] } }, { 'retry-after': '5' });
      }
      opened += 1;
      if (caller !== undefined) perCaller.set(caller, held + 1);
      const stream = new LiveStream(topics, settings.maxEventsPerSecond, settings.pollMs * 5);
      let expiry: NodeJS.Timeout | undefined;
      let remove: (() => void) | undefined;
      let ended = false;
      stream.onEnd = () => {
        ended = true;
        if (expiry) clearTimeout(expiry);
        remove?.();
        opened -= 1;
        if (caller === undefined) return;
        const left = (perCaller.get(caller) ?? 1) - 1;
        if (left > 0) perCaller.set(caller, left);
        else perCaller.delete(caller);
      };
      try {
        remove = await hub.subscribe(stream, resumeFrom);
      } catch (error) {
        stream.finish();
        throw error;
      }
      if (ended) remove();
      const expiresAt = settings.expiresAt(ctx);
      if (expiresAt !== undefined)
        // setTimeout takes at most 2^31 - 1 ms (24.8 days); a longer-lived token ends its stream then.
        expiry = setTimeout(
          () => stream.end('expired'),
          Math.min(2 ** 31 - 1, Math.max(0, expiresAt * 1000 - Date.now())),
        );
      departed(() => stream.finish());
      return stream;
    },
    close: async () => {
      await hub.close();
      await bus?.close();
    },
  };
}
