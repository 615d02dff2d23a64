/**
 * The live client against a real HTTP server (node:http on port 0) that writes the stream's frames as
 * the service would: one stream for all topics, resumed with Last-Event-ID, `end` and `reset`
 * followed, refusals at open told and not retried in a loop.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ApiError,
  createLiveClient,
  type LiveClient,
  type LiveEvent,
  type LiveOptions,
} from '../../src/client/index.js';
import { change, frame, LiveServer, refuse } from '../support/live-server.js';

/** A subscriber that keeps what it hears. */
function recorder() {
  const events: LiveEvent[] = [];
  const errors: ApiError[] = [];
  let opens = 0;
  return {
    events,
    errors,
    get opens() {
      return opens;
    },
    subscriber: {
      onEvent: (event: LiveEvent) => events.push(event),
      onError: (error: ApiError) => errors.push(error),
      onOpen: () => {
        opens += 1;
      },
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('live client', () => {
  let server: LiveServer;
  let baseUrl: string;
  let client: LiveClient | undefined;
  const live = (options: LiveOptions = {}) => {
    client = createLiveClient({ baseUrl, debounceMs: 20, retryMs: 10, ...options });
    return client;
  };

  beforeEach(async () => {
    server = new LiveServer();
    baseUrl = await server.start();
  });
  afterEach(async () => {
    client?.close();
    client = undefined;
    await server.stop();
  });

  it('carries every topic on one stream and gives each subscriber its own topic’s events', async () => {
    const users = recorder();
    const post = recorder();
    const again = recorder();
    const token = vi.fn(() => ({ authorization: 'Bearer one' }));
    const c = live({ headers: token });
    c.subscribe('resource/users', users.subscriber);
    c.subscribe('resource/posts/7', post.subscriber);
    c.subscribe('resource/users', again.subscriber);
    const first = await server.request(1);
    expect(first.topics.sort()).toEqual(['resource/posts/7', 'resource/users']);
    expect(first.headers.authorization).toBe('Bearer one');
    expect(first.headers.accept).toBe('text/event-stream');
    expect(first.headers['last-event-id']).toBeUndefined();
    await vi.waitFor(() => expect(users.opens).toBe(1));

    change(first.res, 1, 'resource/users', 'created', [7, 9]);
    change(first.res, 2, 'resource/posts/7', 'updated', [7]);
    first.res.write(': ping\n\n');
    await vi.waitFor(() => expect(post.events).toHaveLength(1));
    await vi.waitFor(() => expect(again.events).toHaveLength(1));
    expect(users.events).toEqual([{ kind: 'change', topic: 'resource/users', type: 'created', ids: [7, 9] }]);
    expect(again.events).toEqual(users.events);
    expect(post.events).toEqual([{ kind: 'change', topic: 'resource/posts/7', type: 'updated', ids: [7] }]);
    expect(server.opened).toHaveLength(1);
    expect(token).toHaveBeenCalledTimes(1);
  });

  it('a subscriber joining a topic already open is told the stream is open, without a new stream', async () => {
    const c = live();
    c.subscribe('resource/users', () => {});
    await server.request(1);
    await sleep(30);
    const late = recorder();
    c.subscribe('resource/users', late.subscriber);
    await vi.waitFor(() => expect(late.opens).toBe(1));
    await sleep(60);
    expect(server.opened).toHaveLength(1);
  });

  it('resends the last event id when the server closes the stream, and delivers what follows', async () => {
    const users = recorder();
    live().subscribe('resource/users', users.subscriber);
    const first = await server.request(1);
    change(first.res, 5, 'resource/users', 'deleted', [3]);
    await vi.waitFor(() => expect(users.events).toHaveLength(1));
    first.res.end();
    const second = await server.request(2);
    expect(second.headers['last-event-id']).toBe('5');
    expect(second.topics).toEqual(['resource/users']);
    change(second.res, 6, 'resource/users', 'created', [4]);
    await vi.waitFor(() => expect(users.events).toHaveLength(2));
    expect(users.opens).toBe(2);
  });

  it('keeps its position a while after its last topic goes: the next page resumes where the last stopped', async () => {
    const c = live();
    const unsubscribe = c.subscribe('resource/users/1', () => {});
    const first = await server.request(1);
    change(first.res, 8, 'resource/users/1', 'updated', [1]);
    await sleep(30);
    unsubscribe();
    await vi.waitFor(() => expect(first.closed).toBe(true));
    // Another page's topic, soon after: a change made in between is replayed from 8.
    c.subscribe('resource/users', () => {});
    const second = await server.request(2);
    expect(second.headers['last-event-id']).toBe('8');
    expect(second.topics).toEqual(['resource/users']);
  });

  it('follows `end`: expired at once with fresh headers, shutdown after retry:, both from the last id', async () => {
    let n = 0;
    const c = live({
      headers: () => {
        n += 1;
        return { authorization: `Bearer ${n}` };
      },
    });
    c.subscribe('resource/users', () => {});
    const first = await server.request(1);
    frame(first.res, {
      id: 11,
      event: 'change',
      data: { topic: 'resource/users', type: 'updated', ids: [1] },
    });
    frame(first.res, { event: 'end', data: { reason: 'expired' } });
    const second = await server.request(2);
    expect(second.headers.authorization).toBe('Bearer 2');
    expect(second.headers['last-event-id']).toBe('11');
    await vi.waitFor(() => expect(first.closed).toBe(true));

    frame(second.res, { event: 'end', data: { reason: 'shutdown' } });
    const third = await server.request(3);
    expect(third.headers.authorization).toBe('Bearer 3');
    expect(third.headers['last-event-id']).toBe('11');
  });

  it('delivers a reset to the subscribers of the topics it names, and only those', async () => {
    const users = recorder();
    const user = recorder();
    const posts = recorder();
    const c = live();
    c.subscribe('resource/users', users.subscriber);
    c.subscribe('resource/users/1', user.subscriber);
    c.subscribe('resource/posts', posts.subscriber);
    const first = await server.request(1);
    frame(first.res, {
      id: 3,
      event: 'reset',
      data: { topics: ['resource/users', 'resource/users/1'], reason: 'rate' },
    });
    await vi.waitFor(() => expect(user.events).toHaveLength(1));
    expect(users.events).toEqual([{ kind: 'reset', topic: 'resource/users', reason: 'rate' }]);
    expect(user.events).toEqual([{ kind: 'reset', topic: 'resource/users/1', reason: 'rate' }]);
    expect(posts.events).toEqual([]);
  });

  it('reopens one stream with the last id when topics change, and closes it when none is left', async () => {
    const c = live();
    const dropUsers = c.subscribe('resource/users', () => {});
    const first = await server.request(1);
    change(first.res, 3, 'resource/users', 'created', [1]);
    await sleep(30);
    // Three changes within the debounce: one new stream.
    const dropPosts = c.subscribe('resource/posts', () => {});
    const dropPost = c.subscribe('resource/posts/2', () => {});
    const dropTags = c.subscribe('resource/tags', () => {});
    dropTags();
    const second = await server.request(2);
    expect(second.topics.sort()).toEqual(['resource/posts', 'resource/posts/2', 'resource/users']);
    expect(second.headers['last-event-id']).toBe('3');
    await vi.waitFor(() => expect(first.closed).toBe(true));
    await sleep(60);
    expect(server.opened).toHaveLength(2);

    dropUsers();
    dropPosts();
    dropPost();
    await vi.waitFor(() => expect(second.closed).toBe(true));
    await sleep(60);
    expect(server.opened).toHaveLength(2);
  });

  it('reports a refusal at open and does not retry it until the topics change', async () => {
    server.answers.push(refuse(403, 'Not for you.', { access: ['Not for you.'] }));
    const users = recorder();
    const c = live();
    c.subscribe('resource/users', users.subscriber);
    await vi.waitFor(() => expect(users.errors).toHaveLength(1));
    expect(users.errors[0]?.status).toBe(403);
    expect(users.errors[0]?.envelope).toEqual({
      message: 'Not for you.',
      errors: { access: ['Not for you.'] },
    });
    await sleep(150);
    expect(server.opened).toHaveLength(1);

    // A subscriber of the refused topic hears the refusal; a new topic is a new request.
    const late = recorder();
    c.subscribe('resource/users', late.subscriber);
    await vi.waitFor(() => expect(late.errors).toHaveLength(1));
    c.subscribe('resource/posts', () => {});
    const second = await server.request(2);
    expect(second.topics.sort()).toEqual(['resource/posts', 'resource/users']);
  });

  it('drops only the topics a 422 names and keeps the others live', async () => {
    server.answers.push(
      refuse(422, 'A topic is not live.', { topic: ['"resource/secrets" is not a live topic.'] }),
    );
    const users = recorder();
    const secrets = recorder();
    const c = live();
    c.subscribe('resource/users', users.subscriber);
    c.subscribe('resource/secrets', secrets.subscriber);
    const second = await server.request(2);
    expect(second.topics).toEqual(['resource/users']);
    expect(secrets.errors.map((error) => error.status)).toEqual([422]);
    expect(users.errors).toEqual([]);
    change(second.res, 1, 'resource/users', 'updated', [2]);
    await vi.waitFor(() => expect(users.events).toHaveLength(1));
  });

  it('asks the headers again once on a 401, then reports it', async () => {
    server.answers.push(refuse(401, 'Expired token.'), refuse(401, 'Expired token.'));
    const users = recorder();
    const headers = vi.fn(() => ({ authorization: 'Bearer old' }));
    live({ headers }).subscribe('resource/users', users.subscriber);
    await vi.waitFor(() => expect(users.errors).toHaveLength(1));
    expect(users.errors[0]?.status).toBe(401);
    expect(headers).toHaveBeenCalledTimes(2);
    await sleep(150);
    expect(server.opened).toHaveLength(2);
  });

  it('takes a 404 as a service without live lists: told once, never asked again', async () => {
    const c = live({ prefix: '/nowhere' });
    const users = recorder();
    c.subscribe('resource/users', users.subscriber);
    await vi.waitFor(() => expect(users.errors).toHaveLength(1));
    expect(users.errors[0]?.status).toBe(404);
    const posts = recorder();
    c.subscribe('resource/posts', posts.subscriber);
    await vi.waitFor(() => expect(posts.errors).toHaveLength(1));
    await sleep(100);
    expect(server.opened).toHaveLength(1);
  });

  it('retries a 503 after its Retry-After, and a 422 of its position from now with a reset', async () => {
    server.answers.push(refuse(503, 'Busy.', {}, { 'retry-after': '0' }));
    const users = recorder();
    live().subscribe('resource/users', users.subscriber);
    const second = await server.request(2);
    expect(users.errors).toEqual([]);
    change(second.res, 9, 'resource/users', 'created', [1]);
    await vi.waitFor(() => expect(users.events).toHaveLength(1));
    server.answers.push(refuse(422, 'Unknown position.', { last_event_id: ['Unknown position.'] }));
    second.res.end();
    const fourth = await server.request(4);
    expect(server.opened[2]?.headers['last-event-id']).toBe('9');
    expect(fourth.headers['last-event-id']).toBeUndefined();
    expect(users.events.at(-1)).toEqual({ kind: 'reset', topic: 'resource/users', reason: 'expired' });
  });

  it('takes a silent connection for dead and reopens it', async () => {
    live({ idleMs: 80 }).subscribe('resource/users', () => {});
    const first = await server.request(1);
    const second = await server.request(2);
    await vi.waitFor(() => expect(first.closed).toBe(true));
    expect(second.topics).toEqual(['resource/users']);
  });

  it('refuses a topic that is not one', () => {
    expect(() => live().subscribe('users', () => {})).toThrow(TypeError);
  });
});
