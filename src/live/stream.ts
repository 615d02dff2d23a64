import type { LiveChange, LiveReset } from '../request/live.js';
import type { Delivery, Subscriber, WatchedTopic } from './hub.js';

/** One SSE frame: an event with its data, and the position to resume from when it has one. */
const frame = (event: string, data: unknown, id?: number): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * One open stream: a `Subscriber` of the hub whose deliveries become SSE frames, read by the host as
 * the response body. It holds no more than its frames not yet written; past `maxEventsPerSecond` the
 * rest of the second's changes are one `reset`.
 */
export class LiveStream implements Subscriber, AsyncIterable<string> {
  private readonly queue: string[] = [];
  private wake: (() => void) | undefined;
  private done = false;
  private windowStart = 0;
  private sentInWindow = 0;
  private resetInWindow = false;
  /** Called once when the stream ends, whoever ends it. */
  onEnd: (() => void) | undefined;
  private markSettled: () => void = () => undefined;
  /** Resolved once the stream's reader has taken its last frame (the host then ends the response). */
  readonly settled = new Promise<void>((resolve) => {
    this.markSettled = resolve;
  });

  constructor(
    readonly topics: readonly WatchedTopic[],
    private readonly maxEventsPerSecond: number,
    retryMs: number,
  ) {
    this.queue.push(`retry: ${retryMs}\n\n`);
  }

  deliver({ seq, changes }: Delivery): void {
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.sentInWindow = 0;
      this.resetInWindow = false;
    }
    if (this.resetInWindow) return;
    if (this.sentInWindow + changes.length > this.maxEventsPerSecond) {
      this.reset(
        this.topics.map((topic) => topic.topic),
        'rate',
        seq,
      );
      this.resetInWindow = true;
      return;
    }
    this.sentInWindow += changes.length;
    // The position goes on the last frame: a client cut off in the middle gets the whole batch again.
    changes.forEach((change, i) => {
      const data: LiveChange = change;
      this.push(frame('change', data, i === changes.length - 1 ? seq : undefined));
    });
  }

  reset(topics: readonly string[], reason: LiveReset['reason'], seq: number): void {
    const data: LiveReset = { topics, reason };
    this.push(frame('reset', data, seq));
  }

  ping(): void {
    this.push(': ping\n\n');
  }

  end(reason: 'expired' | 'shutdown'): void {
    if (this.done) return;
    this.push(frame('end', { reason }));
    this.finish();
  }

  /** Ends the stream without a word (the client went away). */
  finish(): void {
    if (this.done) return;
    this.done = true;
    this.wake?.();
    this.onEnd?.();
  }

  private push(text: string): void {
    if (this.done) return;
    this.queue.push(text);
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    try {
      for (;;) {
        if (this.queue.length > 0) {
          // What has gathered since the last write goes out as one chunk.
          yield this.queue.splice(0).join('');
          continue;
        }
        if (this.done) return;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
      }
    } finally {
      this.finish();
      this.markSettled();
    }
  }
}
