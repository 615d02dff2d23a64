/**
 * Server-Sent Events read from text, as the HTML standard's EventSource interprets a stream
 * ("Parsing an event stream"), for a stream read with `fetch`: EventSource cannot send an
 * Authorization header. Bytes are the caller's to decode (`TextDecoder` with `stream: true`, which
 * also drops the byte order mark).
 */

/** One dispatched event: its type (`message` when the frame names none), its data, and the stream's position. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  /** The last `id:` seen on the stream up to this event, as EventSource's `lastEventId`. */
  readonly lastEventId: string;
}

export interface SseParserOptions {
  /** The position a resumed stream starts from (what was sent as `Last-Event-ID`). */
  lastEventId?: string;
  /** A `retry:` field: the reconnection delay the server asks for, in milliseconds. */
  onRetry?: (milliseconds: number) => void;
}

const LINE_END = /\r\n|\r|\n/g;
const DIGITS = /^\d+$/;

export class SseParser {
  #lastEventId: string;
  #idBuffer: string;
  #type = '';
  #data: string[] = [];
  /** The text after the last line end, waiting for the rest of its line. */
  #partial = '';
  /** A chunk ended on CR: an LF starting the next one belongs to the same line end. */
  #afterCr = false;
  readonly #onEvent: (event: SseEvent) => void;
  readonly #onRetry: ((milliseconds: number) => void) | undefined;

  constructor(onEvent: (event: SseEvent) => void, options: SseParserOptions = {}) {
    this.#onEvent = onEvent;
    this.#onRetry = options.onRetry;
    this.#lastEventId = options.lastEventId ?? '';
    this.#idBuffer = this.#lastEventId;
  }

  /**
   * The position to resume from: the last `id:` of the events dispatched so far (a frame that was cut
   * off does not count, as it was never delivered).
   */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** Reads the next piece of the stream; complete events are dispatched before it returns. */
  push(chunk: string): void {
    let text = chunk;
    if (this.#afterCr && text !== '') {
      if (text.startsWith('\n')) text = text.slice(1);
      this.#afterCr = false;
    }
    const whole = this.#partial + text;
    let from = 0;
    LINE_END.lastIndex = 0;
    for (let end = LINE_END.exec(whole); end !== null; end = LINE_END.exec(whole)) {
      const next = end.index + end[0].length;
      // A lone CR at the very end may be the first half of a CRLF split across chunks.
      if (end[0] === '\r' && next === whole.length) this.#afterCr = true;
      this.#line(whole.slice(from, end.index));
      from = next;
    }
    this.#partial = whole.slice(from);
  }

  /** The stream ended: an event not closed by a blank line is dropped, as the standard says. */
  end(): void {
    this.#partial = '';
    this.#afterCr = false;
    this.#idBuffer = this.#lastEventId;
    this.#type = '';
    this.#data = [];
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#type = value;
        break;
      case 'data':
        this.#data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.#idBuffer = value;
        break;
      case 'retry':
        if (DIGITS.test(value)) this.#onRetry?.(Number(value));
        break;
      default:
      // Unknown fields are ignored, so servers can add their own.
    }
  }

  #dispatch(): void {
    // The position moves even for a frame without data (an `id:` alone), as EventSource's does.
    this.#lastEventId = this.#idBuffer;
    const type = this.#type;
    const data = this.#data;
    this.#type = '';
    this.#data = [];
    if (data.length === 0) return;
    this.#onEvent({
      event: type === '' ? 'message' : type,
      data: data.join('\n'),
      lastEventId: this.#lastEventId,
    });
  }
}
