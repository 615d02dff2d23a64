/**
 * The providers' live methods over a real HTTP stream (test/support/live-server.ts): refine's channels
 * and react-admin's topics mapped to the service's, and the events mapped back to each library's.
 */
import type { LiveEvent } from '@refinedev/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type RealtimeEvent, reactAdminDataProvider } from '../../src/providers/react-admin.js';
import { RefineHttpError, refineLiveProvider } from '../../src/providers/refine.js';
import { change, frame, LiveServer, refuse } from '../support/live-server.js';

const withoutDate = <E extends { date: Date }>(events: E[]) => events.map(({ date: _, ...rest }) => rest);

describe('live providers', () => {
  let server: LiveServer;
  let apiUrl: string;

  beforeEach(async () => {
    server = new LiveServer();
    apiUrl = `${await server.start()}/api`;
  });
  afterEach(async () => {
    await server.stop();
  });

  it('refine: channels become topics, events become LiveEvents, a reset is "*"', async () => {
    const provider = refineLiveProvider({
      apiUrl,
      resources: { people: 'users' },
      headers: () => ({ authorization: 'Bearer refine' }),
    });
    const list: LiveEvent[] = [];
    const one: LiveEvent[] = [];
    const many: LiveEvent[] = [];
    const handles = [
      provider.subscribe({
        channel: 'resources/people',
        types: ['*'],
        params: { subscriptionType: 'useList' },
        callback: (event) => list.push(event),
      }),
      provider.subscribe({
        channel: 'resources/people',
        types: ['*'],
        params: { ids: ['a/b'], id: 'a/b', subscriptionType: 'useOne' },
        callback: (event) => one.push(event),
      }),
      provider.subscribe({
        channel: 'resources/people',
        types: ['*'],
        params: { ids: [1, 2], subscriptionType: 'useMany' },
        callback: (event) => many.push(event),
      }),
    ];
    expect(handles.map((handle) => handle.topic)).toEqual([
      'resource/users',
      'resource/users/a%2Fb',
      'resource/users',
    ]);
    const stream = await server.request(1);
    expect(stream.topics.sort()).toEqual(['resource/users', 'resource/users/a%2Fb']);
    expect(stream.headers.authorization).toBe('Bearer refine');

    change(stream.res, 1, 'resource/users', 'updated', [3]);
    change(stream.res, 2, 'resource/users', 'deleted', [2, 5]);
    change(stream.res, 3, 'resource/users/a%2Fb', 'updated', ['a/b']);
    frame(stream.res, { id: 4, event: 'reset', data: { topics: ['resource/users'], reason: 'late' } });
    await vi.waitFor(() => expect(list).toHaveLength(3));
    await vi.waitFor(() => expect(one).toHaveLength(1));
    expect(withoutDate(list)).toEqual([
      { channel: 'resources/people', type: 'updated', payload: { ids: [3] } },
      { channel: 'resources/people', type: 'deleted', payload: { ids: [2, 5] } },
      { channel: 'resources/people', type: '*', payload: {} },
    ]);
    expect(list.every((event) => event.date instanceof Date)).toBe(true);
    // useMany's ids: only the change that names one of them, and the reset.
    expect(withoutDate(many)).toEqual([
      { channel: 'resources/people', type: 'deleted', payload: { ids: [2, 5] } },
      { channel: 'resources/people', type: '*', payload: {} },
    ]);
    expect(withoutDate(one)).toEqual([
      { channel: 'resources/people', type: 'updated', payload: { ids: ['a/b'] } },
    ]);

    for (const handle of handles) provider.unsubscribe(handle);
    await vi.waitFor(() => expect(stream.closed).toBe(true));
  });

  it('refine: a refusal goes to onError as refine’s HttpError', async () => {
    server.answers.push(refuse(403, 'Not yours.', { access: ['Not yours.'] }));
    const errors: [RefineHttpError, string][] = [];
    const provider = refineLiveProvider({
      apiUrl,
      onError: (error, channel) => errors.push([error, channel]),
    });
    const handle = provider.subscribe({ channel: 'resources/users', types: ['*'], callback: () => {} });
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    const [error, channel] = errors[0] as [RefineHttpError, string];
    expect(error).toBeInstanceOf(RefineHttpError);
    expect([error.statusCode, error.message, channel]).toEqual([403, 'Not yours.', 'resources/users']);
    provider.unsubscribe(handle);
  });

  it('react-admin: subscribe resolves once open, passes events on, unsubscribe closes the stream', async () => {
    const provider = reactAdminDataProvider({ apiUrl, resources: { people: 'users' } });
    const events: RealtimeEvent[] = [];
    const callback = (event: RealtimeEvent) => events.push(event);
    const opened = provider.subscribe('resource/people/7', callback);
    const stream = await server.request(1);
    expect(stream.topics).toEqual(['resource/users/7']);
    await expect(opened).resolves.toEqual({ data: null });
    change(stream.res, 1, 'resource/users/7', 'updated', [7]);
    frame(stream.res, { id: 2, event: 'reset', data: { topics: ['resource/users/7'], reason: 'rate' } });
    await vi.waitFor(() => expect(events).toHaveLength(2));
    expect(withoutDate(events)).toEqual([
      { type: 'updated', topic: 'resource/people/7', payload: { ids: [7] } },
      { type: 'reset', topic: 'resource/people/7', payload: { reason: 'rate' } },
    ]);
    await provider.unsubscribe('resource/people/7', callback);
    await vi.waitFor(() => expect(stream.closed).toBe(true));
  });

  it('react-admin: a refusal rejects subscribe with an HttpError', async () => {
    server.answers.push(refuse(422, 'Not live.', { topic: ['"resource/users" has no live changes.'] }));
    const provider = reactAdminDataProvider({ apiUrl });
    const callback = () => {};
    await expect(provider.subscribe('resource/users', callback)).rejects.toMatchObject({
      status: 422,
      message: 'Not live.',
    });
    await expect(provider.subscribe('users', callback)).rejects.toMatchObject({ status: 422 });
    await provider.unsubscribe('resource/users', callback);
  });
});
