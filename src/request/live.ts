/**
 * The live stream's words, shared by the server (`live/`) and the clients (`client/live.ts`): the
 * topics a stream asks for and the events it carries. Events name ids and a type, never row data: a
 * client refetches through the list and read-one endpoints, where fields, scopes and access apply.
 */

/** What happened to a row, as the subscriber can see it. */
export type LiveChangeType = 'created' | 'updated' | 'deleted';

/**
 * One event of the stream (`event: change`): the ids of one topic's records that changed in one way,
 * in the order of their changes. Its SSE `id` is the position to resume from (`Last-Event-ID`).
 */
export interface LiveChange {
  readonly topic: string;
  readonly type: LiveChangeType;
  /** The records' keys as the list answers them (a number for an integer key). */
  readonly ids: readonly unknown[];
}

/**
 * `event: reset`: the changes of these topics since the client's position cannot be told (they are
 * no longer kept, a burst passed the stream's rate, or a change was recorded late): refetch what they show.
 */
export interface LiveReset {
  readonly topics: readonly string[];
  readonly reason: 'expired' | 'rate' | 'late';
}

/** A topic as a stream names it: a list's (`resource/users`) or one record's (`resource/users/7`). */
export interface LiveTopic {
  readonly topic: string;
  /** The endpoint's path (`users`). */
  readonly path: string;
  /** The record's id as the path would carry it (decoded), for a record's topic. */
  readonly id?: string;
}

const PREFIX = 'resource/';

/**
 * A topic's parts, or undefined when it is not one: `resource/<endpoint path>` or
 * `resource/<endpoint path>/<id>`, the id escaped as in a record's URL (`encodeURIComponent`).
 */
export function parseTopic(topic: string): LiveTopic | undefined {
  if (!topic.startsWith(PREFIX)) return undefined;
  const rest = topic.slice(PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash === -1) return rest === '' ? undefined : { topic, path: rest };
  const path = rest.slice(0, slash);
  const raw = rest.slice(slash + 1);
  if (path === '' || raw === '' || raw.includes('/')) return undefined;
  try {
    return { topic, path, id: decodeURIComponent(raw) };
  } catch {
    return undefined;
  }
}

/** The topic of a list, or of one of its records. */
export function topicOf(path: string, id?: unknown): string {
  return id === undefined ? `${PREFIX}${path}` : `${PREFIX}${path}/${encodeURIComponent(String(id))}`;
}
