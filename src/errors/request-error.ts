import type { ErrorEnvelope } from './error-bag.js';

/** A request the client must change: carries the full error map to the HTTP edge. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope,
    /** Response headers that go with it (`Retry-After` on a 503). */
    readonly headers: Readonly<Record<string, string>> = {},
    /** What went wrong underneath (for the log only, never for the client). */
    cause?: unknown,
  ) {
    super(envelope.message, cause === undefined ? undefined : { cause });
  }

  /** Also a RequestError from another copy of this package (see `isFilterValueError`). */
  static is(error: unknown): error is RequestError {
    if (error instanceof RequestError) return true;
    const candidate = error as Partial<RequestError> | null;
    return (
      error instanceof Error &&
      typeof candidate?.status === 'number' &&
      typeof candidate.envelope?.message === 'string' &&
      typeof candidate.envelope.errors === 'object'
    );
  }

  static single(status: number, key: string, message: string): RequestError {
    return new RequestError(status, { message, errors: { [key]: [message] } });
  }
}
