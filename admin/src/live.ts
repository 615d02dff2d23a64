import { useContext, useEffect, useRef } from 'react';
import { DataProviderContext, type Identifier } from 'react-admin';
import type { RealtimeEvent, ServiceDataProvider } from '../../src/providers/react-admin.js';

/**
 * Live pages: lists and records listen to their topics through the data provider's `subscribe`, which
 * shares one stream among all of them. Only where the service streams: its OpenAPI document has a
 * `<prefix>/live` operation (`livePaths`). Asking the route itself would cost a refused request on a
 * service without it, which the browser logs as an error; a refusal that still comes (a resource
 * that is not live) leaves the page as it always was, without a word.
 */

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The strings a parameter's schema enumerates (`enum`, `const`, in `items`, `anyOf` or `oneOf`). */
function enumerated(schema: unknown): string[] {
  if (!isJson(schema)) return [];
  const own = [...(Array.isArray(schema.enum) ? schema.enum : []), schema.const].filter(
    (value): value is string => typeof value === 'string',
  );
  const nested = [
    schema.items,
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
    ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
  ];
  return [...own, ...nested.flatMap(enumerated)];
}

/**
 * The endpoint paths (of `paths`) whose topics the service streams, read from its OpenAPI document:
 * none without a `<prefix>/live` operation; where its `topic` parameter enumerates list topics
 * (`resource/<path>`), those; else every one.
 */
export function livePaths(openapi: unknown, prefix: string, paths: readonly string[]): ReadonlySet<string> {
  const documented = isJson(openapi) && isJson(openapi.paths) ? openapi.paths[`${prefix}/live`] : undefined;
  if (!isJson(documented) || !isJson(documented.get)) return new Set();
  const parameters = Array.isArray(documented.get.parameters) ? documented.get.parameters : [];
  const topic = parameters.find(
    (parameter): parameter is Json => isJson(parameter) && parameter.name === 'topic',
  );
  const named = enumerated(topic?.schema).flatMap((name) => {
    const match = /^resource\/([^/]+)/.exec(name);
    return match?.[1] ? [match[1]] : [];
  });
  return new Set(named.length > 0 ? paths.filter((path) => named.includes(path)) : paths);
}

/** A resource's list topic, or one record's (react-admin's convention: the id as it is). */
export const listTopic = (path: string): string => `resource/${path}`;
export const recordTopic = (path: string, id: Identifier): string => `resource/${path}/${String(id)}`;

/**
 * Calls `onEvent` with each event of `topic` while the component is mounted (none while `topic` is
 * undefined). The provider is taken from its context, not `useDataProvider`, whose wrapper would log a
 * refusal that only means "not live here" as an error.
 */
export function useLiveTopic(topic: string | undefined, onEvent: (event: RealtimeEvent) => void): void {
  const provider = useContext(DataProviderContext) as Partial<ServiceDataProvider> | null;
  const latest = useRef(onEvent);
  useEffect(() => {
    latest.current = onEvent;
  });
  useEffect(() => {
    const subscribe = provider?.subscribe;
    const unsubscribe = provider?.unsubscribe;
    if (topic === undefined || !subscribe || !unsubscribe) return;
    const callback = (event: RealtimeEvent) => latest.current(event);
    subscribe(topic, callback).catch(() => {});
    return () => {
      void unsubscribe(topic, callback);
    };
  }, [provider, topic]);
}

/**
 * `run`, at most once per `waitMs` however many events call for it: a burst of changes (an import,
 * a bulk delete) is one refetch, not one per row.
 */
export function useCoalesced(run: () => void, waitMs = 300): () => void {
  const latest = useRef(run);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    latest.current = run;
  });
  useEffect(
    () => () => {
      clearTimeout(timer.current);
      timer.current = undefined;
    },
    [],
  );
  return useRef(() => {
    timer.current ??= setTimeout(() => {
      timer.current = undefined;
      latest.current();
    }, waitMs);
  }).current;
}

/**
 * This tab's own writes, by resource, id and the events they cause: in flight, and for a while after
 * their answer (their events arrive about then). A record page warns of someone else's change, not of
 * its own save; someone else's delete just after this tab's save is still someone else's.
 */
const OWN_FOR_MS = 10_000;
const ownWrites = new Map<string, number>();
const ownKey = (resource: string, id: Identifier, type: RealtimeEvent['type']) =>
  `${resource}\n${String(id)}\n${type}`;

export const isOwnWrite = (resource: string, id: Identifier, type: RealtimeEvent['type']): boolean =>
  (ownWrites.get(ownKey(resource, id, type)) ?? 0) > Date.now();

function marked<T>(
  resource: string,
  ids: readonly Identifier[],
  // A soft delete may be told as an update of the row, a restore as its creation.
  types: readonly RealtimeEvent['type'][],
  write: () => Promise<T>,
): Promise<T> {
  const now = Date.now();
  for (const [key, until] of ownWrites) if (until < now) ownWrites.delete(key);
  const keys = ids.flatMap((id) => types.map((type) => ownKey(resource, id, type)));
  for (const key of keys) ownWrites.set(key, Number.POSITIVE_INFINITY);
  return write().finally(() => {
    for (const key of keys) ownWrites.set(key, Date.now() + OWN_FOR_MS);
  });
}

/** The data provider with its writes of existing records remembered as this tab's (`isOwnWrite`). */
export function withOwnWrites(provider: ServiceDataProvider): ServiceDataProvider {
  return {
    ...provider,
    update: (resource, params) =>
      marked(resource, [params.id], ['updated'], () => provider.update(resource, params)),
    updateMany: (resource, params) =>
      marked(resource, params.ids, ['updated'], () => provider.updateMany(resource, params)),
    delete: (resource, params) =>
      marked(resource, [params.id], ['deleted', 'updated'], () => provider.delete(resource, params)),
    deleteMany: (resource, params) =>
      marked(resource, params.ids, ['deleted', 'updated'], () => provider.deleteMany(resource, params)),
    restore: (resource, params) =>
      marked(resource, [params.id], ['created', 'updated'], () => provider.restore(resource, params)),
  };
}
