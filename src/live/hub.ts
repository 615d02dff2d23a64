import type { LiveChangeType } from '../request/live.js';
import type { Viewer } from './audience.js';
import type { ChangeLog, Image, LoggedChange } from './log.js';
import type { LiveSettings } from './settings.js';

/** One topic of a subscription, resolved: the table it watches, who watches, and for a record its key. */
export interface WatchedTopic {
  readonly topic: string;
  readonly table: string;
  readonly viewer: Viewer;
  /** A record's key as the log writes it; absent for a list's topic. */
  readonly key?: string;
  /** The id an event answers for a key of the log (a number for an integer key). */
  readonly idOf: (key: string) => unknown;
}

/** What the hub hands a subscription: changes by topic, a reset of some topics, or the end. */
export interface Delivery {
  /** The position a client resumes from after this delivery. */
  readonly seq: number;
  readonly changes: readonly { topic: string; type: LiveChangeType; ids: unknown[] }[];
}

/** A stream's side of the hub. */
export interface Subscriber {
  readonly topics: readonly WatchedTopic[];
  deliver(delivery: Delivery): void;
  reset(topics: readonly string[], reason: 'expired' | 'rate' | 'late', seq: number): void;
  /** A comment on the stream, so proxies and clients know it is alive. */
  ping(): void;
  end(reason: 'expired' | 'shutdown'): void;
  /** Resolved once the stream's reader has taken its last frame. */
  readonly settled: Promise<void>;
}

/** A subscriber and the position it has reached. */
interface Entry {
  readonly subscriber: Subscriber;
  /** The last sequence number it has (changes at or before it are not delivered to it). */
  position: number;
  /** Deliveries held while its resumed changes are read. */
  held: Delivery[] | undefined;
}

/**
 * One per service instance: reads the change log in `seq` order while streams are open and hands each
 * change to the subscribers that may learn of it.
 *
 * A sequence number is taken when a change is recorded and becomes visible when its transaction
 * commits, so a later number can be seen before an earlier one. The hub delivers in number order: past
 * a missing number it waits (`gapMs`) for it to commit, then passes over it (a rolled-back write leaves
 * one for ever). A passed-over number that appears afterwards is a change recorded late: its tables'
 * subscribers get a `reset` rather than a change out of order.
 */
export class LiveHub {
  private readonly entries = new Set<Entry>();
  /** The last sequence number delivered or passed over; undefined until the log is first read. */
  private cursor: number | undefined;
  /** The missing number the hub waits at, and since when (a gap is waited for from its first number). */
  private waiting: { readonly seq: number; readonly since: number } | undefined;
  /**
   * Ranges of numbers passed over, and when: a change that appears in one is late. Ranges, not numbers:
   * a sequence may jump by thousands (a cache of numbers lost at a restart, an increment above one).
   * The newest `MAX_PASSED` are watched.
   */
  private passed: { readonly from: number; readonly to: number; readonly at: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private closed = false;
  private started = false;
  /** A wake-up came during a read: read again at once after it. */
  private again = false;

  constructor(
    private readonly log: ChangeLog,
    private readonly settings: LiveSettings,
    private readonly warn: (error: unknown, message: string) => void,
    /** Called after each read of the log (the service prunes it then, now and again). */
    private readonly afterRead: () => void = () => undefined,
  ) {}

  /** The subscribers open on this instance. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Adds a subscriber from `resumeFrom` (a `Last-Event-ID`), or from now. Its changes after that
   * position and up to the hub's are read first; a position the log no longer covers is a reset.
   */
  async subscribe(subscriber: Subscriber, resumeFrom: number | undefined): Promise<() => void> {
    await this.start();
    // A stream opened afresh starts from the log's end, not from this hub's last read: it must not
    // hear of changes made before it opened.
    const start = resumeFrom ?? (await this.log.bounds())?.last ?? 0;
    const now = this.cursor ?? 0;
    const entry: Entry = {
      subscriber,
      position: Math.max(start, resumeFrom === undefined ? now : 0),
      held: undefined,
    };
    this.entries.add(entry);
    this.ensureTimers();
    const remove = () => {
      this.entries.delete(entry);
      if (this.entries.size === 0) this.stopTimers();
    };
    if (resumeFrom === undefined || resumeFrom >= now) return remove;
    entry.held = [];
    try {
      const bounds = await this.log.bounds();
      // Numbers between the client's and the first kept were pruned, or never committed: unknowable.
      if (!bounds || bounds.first > resumeFrom + 1)
        subscriber.reset(
          subscriber.topics.map((topic) => topic.topic),
          'expired',
          now,
        );
      else {
        const rows = await this.log.between(resumeFrom, now);
        const delivery = deliveryFor(subscriber.topics, rows, now, await decisions(subscriber.topics, rows));
        if (delivery) subscriber.deliver(delivery);
      }
      entry.position = now;
      for (const held of entry.held) {
        subscriber.deliver(held);
        entry.position = held.seq;
      }
    } finally {
      entry.held = undefined;
    }
    return remove;
  }

  /** A write committed somewhere (the bus says so): read the log now rather than at the next poll. */
  wake(): void {
    if (this.closed || this.entries.size === 0) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  /**
   * Ends every stream (`shutdown`: the client reconnects, to another instance, and resumes), and tells
   * when their readers have taken their last frames (at most `waitMs` later): a server closed after
   * that finds their connections idle, and closes them rather than waiting for them.
   */
  async close(waitMs = 1000): Promise<void> {
    this.closed = true;
    this.stopTimers();
    const ending = [...this.entries].map(({ subscriber }) => {
      subscriber.end('shutdown');
      return subscriber.settled;
    });
    this.entries.clear();
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    await Promise.race([Promise.all(ending), waited]);
    clearTimeout(timer);
    // The last frames' writes, and the responses' ends, come a turn after their readers finish.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Reads the log's position once, so a stream opened now starts from here. */
  private async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // An empty log (all pruned) tells no position: the first change read then starts the hub. Read
    // once: a later look would pass over changes not yet delivered.
    const bounds = await this.log.bounds();
    if (bounds) this.cursor ??= bounds.last;
  }

  private ensureTimers(): void {
    if (this.closed) return;
    if (!this.timer) this.schedule(0);
    if (!this.heartbeat) {
      this.heartbeat = setInterval(() => {
        for (const { subscriber } of this.entries) subscriber.ping();
      }, this.settings.heartbeatMs);
      this.heartbeat.unref();
    }
  }

  private stopTimers(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.timer = undefined;
    this.heartbeat = undefined;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.reading = this.read()
        .then(
          (more) => more,
          (error: unknown) => {
            // The database is out of reach: the streams stay open, and the log is read again from
            // where it was, so nothing is lost.
            this.warn(error, 'reading the change log failed');
            return false;
          },
        )
        .then((more) => {
          this.reading = undefined;
          this.afterRead();
          const now = more || this.again;
          this.again = false;
          if (this.entries.size > 0 && !this.closed) this.schedule(now ? 0 : this.settings.pollMs);
          else this.timer = undefined;
        });
    }, ms);
    this.timer.unref();
  }

  /** One read of the log; true when a full batch came (read again at once). */
  private async read(): Promise<boolean> {
    await this.start();
    const now = Date.now();
    this.passed = this.passed.filter((range) => now - range.at <= this.settings.retainMs);
    const batch = this.settings.batch;
    const rows = await this.log.after(this.cursor ?? 0, batch, this.passed);
    const cursor = this.cursor ?? (rows[0]?.seq ?? 1) - 1;
    const late = rows.filter((row) => row.seq <= cursor);
    const fresh = rows.filter((row) => row.seq > cursor);
    if (late.length > 0) this.late(late, cursor);
    const deliverable: LoggedChange[] = [];
    let expected = cursor + 1;
    for (const row of fresh) {
      if (row.seq > expected) {
        if (this.waiting?.seq !== expected) this.waiting = { seq: expected, since: now };
        if (now - this.waiting.since < this.settings.gapMs) break;
        this.passed.push({ from: expected, to: row.seq - 1, at: now });
        if (this.passed.length > MAX_PASSED) this.passed.shift();
      }
      this.waiting = undefined;
      deliverable.push(row);
      expected = row.seq + 1;
    }
    if (deliverable.length === 0) return false;
    const last = (deliverable[deliverable.length - 1] as LoggedChange).seq;
    // Before the cursor moves: a failed query leaves the batch to be read again.
    const decided = await decisions(
      [...this.entries].flatMap((entry) => entry.subscriber.topics),
      deliverable,
    );
    this.cursor = last;
    for (const entry of this.entries) {
      const mine = deliverable.filter((row) => row.seq > entry.position);
      if (mine.length === 0) continue;
      const delivery = deliveryFor(entry.subscriber.topics, mine, last, decided);
      if (!delivery) continue;
      if (entry.held) entry.held.push(delivery);
      else {
        entry.position = last;
        entry.subscriber.deliver(delivery);
      }
    }
    return fresh.length === batch;
  }

  /** Changes recorded under numbers passed over: their tables' topics are reset. */
  private late(rows: readonly LoggedChange[], cursor: number): void {
    const tables = new Set(rows.map((row) => row.table));
    // Each number is reported once: its range is split around it (the rest may still come).
    for (const { seq } of rows)
      this.passed = this.passed.flatMap((range) =>
        seq < range.from || seq > range.to
          ? [range]
          : [
              ...(seq > range.from ? [{ ...range, to: seq - 1 }] : []),
              ...(seq < range.to ? [{ ...range, from: seq + 1 }] : []),
            ],
      );
    for (const { subscriber } of this.entries) {
      const topics = subscriber.topics.filter((topic) => tables.has(topic.table)).map((topic) => topic.topic);
      if (topics.length > 0) subscriber.reset(topics, 'late', cursor);
    }
  }

  /** Waits for a read in progress (tests, shutdown). */
  async settled(): Promise<void> {
    await this.reading;
  }
}

/** The images each group decided by the database may read, for one batch. */
type Decisions = Map<string, Set<Image>>;

/** Whether a viewer may read the row an image shows. */
function sees(viewer: Viewer, image: Image | null, decided: Decisions): boolean {
  if (image === null) return false;
  return 'sees' in viewer ? viewer.sees(image) : (decided.get(viewer.group)?.has(image) ?? false);
}

/**
 * The images of `rows` each group of viewers decided by the database may read: one statement per
 * group and table, whatever the number of subscribers in it.
 */
async function decisions(topics: readonly WatchedTopic[], rows: readonly LoggedChange[]): Promise<Decisions> {
  const decided: Decisions = new Map();
  for (const { viewer, table } of topics) {
    if ('sees' in viewer || decided.has(viewer.group)) continue;
    const images = rows
      .filter((row) => row.table === table)
      .flatMap((row) => [row.before, row.after])
      .filter((image): image is Image => image !== null);
    if (images.length === 0) continue;
    const visible = await viewer.decide(images);
    decided.set(viewer.group, new Set(images.filter((_, i) => visible.has(i + 1))));
  }
  return decided;
}

/** How many ranges of passed-over numbers are watched for late changes. */
const MAX_PASSED = 100;

/**
 * What one subscriber learns of some changes: per topic, each row's change folded over the batch
 * (seen before the first, seen after the last), grouped by type in the order rows first changed.
 */
export function deliveryFor(
  topics: readonly WatchedTopic[],
  rows: readonly LoggedChange[],
  seq: number,
  decided: Decisions = new Map(),
): Delivery | undefined {
  const changes: { topic: string; type: LiveChangeType; ids: unknown[] }[] = [];
  for (const topic of topics) {
    const folded = new Map<string, { before: boolean; after: boolean; between: boolean }>();
    for (const row of rows) {
      if (row.table !== topic.table || (topic.key !== undefined && row.key !== topic.key)) continue;
      const before = sees(topic.viewer, row.before, decided);
      const after = sees(topic.viewer, row.after, decided);
      const known = folded.get(row.key);
      if (known) {
        known.between ||= known.after || before;
        known.after = after;
      } else folded.set(row.key, { before, after, between: false });
    }
    const byType = new Map<LiveChangeType, unknown[]>();
    for (const [key, { before, after, between }] of folded) {
      // A row the subscriber could see at no point of the batch is none of its business.
      const type: LiveChangeType | undefined = after
        ? before
          ? 'updated'
          : 'created'
        : before || between
          ? 'deleted'
          : undefined;
      if (!type) continue;
      const ids = byType.get(type) ?? [];
      byType.set(type, ids);
      ids.push(topic.idOf(key));
    }
    for (const [type, ids] of byType) changes.push({ topic: topic.topic, type, ids });
  }
  return changes.length > 0 ? { seq, changes } : undefined;
}
