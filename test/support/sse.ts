/**
 * A Server-Sent Events stream read over real HTTP (fetch), for the live suites: every frame kept in
 * order, and waits for a frame that meets a condition. Written here rather than taken from the client,
 * so a fault of the client's parser cannot hide one of the server's.
 */
export interface SseFrame {
  readonly id?: string;
  readonly event: string;
  readonly data: unknown;
}

export interface SseStream {
  readonly status: number;
  readonly headers: Headers;
  readonly frames: SseFrame[];
  /** The body of a refused stream (JSON), else undefined. */
  readonly refusal: unknown;
  /** The id of the last frame that had one. */
  lastId(): string | undefined;
  /** Resolves with the first frame (from `from` on) that `match` accepts; rejects after `ms`. */
  until(match: (frame: SseFrame) => boolean, ms?: number, from?: number): Promise<SseFrame>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const frames: SseFrame[] = [];
  const waiters = new Set<() => void>();
  let lastId: string | undefined;
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  if (!response.ok || !response.body) {
    const refusal = await response.json();
    return {
      status: response.status,
      headers: response.headers,
      frames,
      refusal,
      lastId: () => undefined,
      until: () => Promise.reject(new Error(`refused with ${response.status}`)),
      ended: Promise.resolve(),
      close: () => undefined,
    };
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let done = false;
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          let event = 'message';
          let id: string | undefined;
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':') || line.startsWith('retry:')) continue;
            const colon = line.indexOf(':');
            const field = line.slice(0, colon);
            const text = line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') event = text;
            else if (field === 'id') id = text;
            else if (field === 'data') data.push(text);
          }
          if (data.length === 0) continue;
          if (id !== undefined) lastId = id;
          frames.push({ ...(id !== undefined && { id }), event, data: JSON.parse(data.join('\n')) });
          notify();
        }
      }
    } catch {
      // Aborted by close(): the frames read so far stay.
    } finally {
      done = true;
      notify();
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    frames,
    refusal: undefined,
    lastId: () => lastId,
    until: (match, ms = 20_000, from = 0) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = frames.slice(from).find(match);
          if (found) {
            finish();
            resolve(found);
          } else if (done) {
            finish();
            reject(new Error(`the stream ended before the frame came; it had ${JSON.stringify(frames)}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`no such frame within ${ms} ms; the stream had ${JSON.stringify(frames)}`));
        }, ms);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    ended,
    close: () => controller.abort(),
  };
}
