/**
 * A bus that wakes every instance's hub when a write commits, so a change reaches the streams of all
 * instances at once rather than at their next read of the log. It carries no change: the log stays the
 * one record of what happened and in what order, and a lost wake-up (the bus down, a message dropped)
 * costs only the wait until the next read (`pollMs`). Redis's publish/subscribe fits that exactly:
 * fire-and-forget, no state kept, and a server most deployments run already.
 */
export interface WakeBus {
  /** Tells every instance that a change was committed. Never throws; never waits. */
  publish(): void;
  /** Called on every wake-up, this instance's own included. */
  onWake(listener: () => void): void;
  close(): Promise<void>;
}

/** A wake-up bus over Redis at `url`, on the channel `channel`. */
export async function redisBus(
  url: string,
  channel: string,
  warn: (error: unknown, message: string) => void,
): Promise<WakeBus> {
  const { Redis } = await import('ioredis');
  // A subscribed connection can do nothing else: one connection publishes, one listens. Neither queues
  // a command while Redis is away (a wake-up later than the next poll is worth nothing).
  const options = { enableOfflineQueue: false, maxRetriesPerRequest: 0 } as const;
  const publisher = new Redis(url, options);
  // Subscribed again at each (re)connection: a Redis that was down at start-up, or restarted since.
  const subscriber = new Redis(url, { ...options, enableOfflineQueue: true, autoResubscribe: false });
  // One warning per outage, not one per retry.
  let down = false;
  const failed = (error: unknown) => {
    if (down) return;
    down = true;
    warn(error, `the live bus (Redis) is unreachable: streams wait for the next read of the change log`);
  };
  const up = () => {
    down = false;
  };
  for (const connection of [publisher, subscriber]) {
    connection.on('error', failed);
    connection.on('ready', up);
  }
  const listeners: (() => void)[] = [];
  subscriber.on('message', () => {
    for (const listener of listeners) listener();
  });
  let subscribed = false;
  subscriber.on('ready', () => {
    if (subscribed) subscriber.subscribe(channel).catch(failed);
  });
  await subscriber.subscribe(channel).catch(failed);
  subscribed = true;
  return {
    publish: () => {
      publisher.publish(channel, '1').catch(failed);
    },
    onWake: (listener) => {
      listeners.push(listener);
    },
    close: async () => {
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}
