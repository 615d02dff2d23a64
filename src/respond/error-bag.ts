/** Every problem of a request, keyed by the parameter it concerns (`filter.<name>`, `page`, …). */
export class ErrorBag {
  private readonly entries = new Map<string, string[]>();

  add(key: string, message: string): void {
    const messages = this.entries.get(key);
    if (messages) {
      if (!messages.includes(message)) messages.push(message);
    } else this.entries.set(key, [message]);
  }

  get isEmpty(): boolean {
    return this.entries.size === 0;
  }

  /** The 422 envelope: `message` is the first message, with Laravel's "(and N more errors)". */
  toEnvelope(): ErrorEnvelope {
    const errors: Record<string, string[]> = {};
    let total = 0;
    let first = '';
    for (const [key, messages] of this.entries) {
      errors[key] = [...messages];
      if (total === 0) first = messages[0] ?? '';
      total += messages.length;
    }
    const more = total - 1;
    const message = more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
    return { message, errors };
  }
}

export interface ErrorEnvelope {
  message: string;
  errors: Record<string, string[]>;
}

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
