import type { LiveOptions } from '../resource/policy.js';
import { DEFAULT_LOG } from './capture.js';

/** Live streams' settings with their defaults filled in. */
export interface LiveSettings {
  readonly table: string;
  readonly redisUrl: string | undefined;
  readonly pollMs: number;
  readonly retainMs: number;
  readonly gapMs: number;
  readonly pruneMs: number;
  readonly batch: number;
  readonly maxTopics: number;
  readonly maxStreamsPerCaller: number;
  readonly maxStreams: number;
  readonly maxEventsPerSecond: number;
  readonly heartbeatMs: number;
  readonly caller: (ctx: unknown) => string | undefined;
  readonly expiresAt: (ctx: unknown) => number | undefined;
}

/** A claim of a context that is an object (a verified token's claims), when it has that type. */
const claim = <T>(ctx: unknown, name: string, type: 'string' | 'number'): T | undefined => {
  const value = typeof ctx === 'object' && ctx !== null ? (ctx as Record<string, unknown>)[name] : undefined;
  return typeof value === type ? (value as T) : undefined;
};

export function liveSettings(options: LiveOptions): LiveSettings {
  const retainMs = options.retainMs ?? 3_600_000;
  return {
    table: options.table ?? DEFAULT_LOG,
    redisUrl: options.redisUrl,
    pollMs: options.pollMs ?? 200,
    retainMs,
    gapMs: options.gapMs ?? 5000,
    pruneMs: Math.min(60_000, Math.max(1000, retainMs / 10)),
    batch: 1000,
    maxTopics: options.maxTopics ?? 100,
    maxStreamsPerCaller: options.maxStreamsPerCaller ?? 10,
    maxStreams: options.maxStreams ?? 10_000,
    maxEventsPerSecond: options.maxEventsPerSecond ?? 50,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    caller: options.caller ?? ((ctx) => claim<string>(ctx, 'sub', 'string')),
    expiresAt: options.expiresAt ?? ((ctx) => claim<number>(ctx, 'exp', 'number')),
  };
}
