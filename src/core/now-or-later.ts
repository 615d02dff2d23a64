/**
 * A value now, or its promise. The cheap reads answer at once where the database reads synchronously
 * (SQLite's read-one): each promise resolved on their way costs a microtask turn and a `then` lookup,
 * a measurable share of such a request (docs/benchmarks.md). Every other answer keeps its promise.
 */
export type NowOrLater<T> = T | Promise<T>;

/**
 * Whether a value is a thenable: for what a configuration's hook returns, which may be any promise
 * library's. The service's own promises are native, and are told by `instanceof Promise`.
 */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/** `next` of the value, at once when it is there, after it when it is a promise. */
export function andThen<T, U>(value: NowOrLater<T>, next: (settled: T) => NowOrLater<U>): NowOrLater<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
