import { describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from '../../src/client/sse.js';

/** The events and retries a stream gives when it arrives in these pieces. */
function read(chunks: readonly string[], lastEventId?: string) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const parser = new SseParser((event) => events.push(event), {
    ...(lastEventId !== undefined ? { lastEventId } : {}),
    onRetry: (ms) => retries.push(ms),
  });
  for (const chunk of chunks) parser.push(chunk);
  return { events, retries, parser };
}

/** Every way of cutting `text` in two, and one character at a time. */
function cuts(text: string): string[][] {
  const pieces = [[text], [...text]];
  for (let at = 1; at < text.length; at++) pieces.push([text.slice(0, at), text.slice(at)]);
  return pieces;
}

describe('SseParser', () => {
  const stream =
    'retry: 10\n\n: ping\n\nid: 1\nevent: change\ndata: {"a":1}\n\nid: 2\r\nevent: reset\r\ndata: x\r\ndata: y\r\n\r\n' +
    'data:no space\rdata:  two spaces\r\rid\ndata\n\n';
  const expected: SseEvent[] = [
    { event: 'change', data: '{"a":1}', lastEventId: '1' },
    { event: 'reset', data: 'x\ny', lastEventId: '2' },
    { event: 'message', data: 'no space\n two spaces', lastEventId: '2' },
    // `id` without a value empties the position; `data` without a colon is an empty line of data.
    { event: 'message', data: '', lastEventId: '' },
  ];

  it('reads the same events however the stream is cut (LF, CRLF, CR, a CRLF split between chunks)', () => {
    for (const chunks of cuts(stream)) {
      const { events, retries } = read(chunks);
      expect(events, JSON.stringify(chunks)).toEqual(expected);
      expect(retries).toEqual([10]);
    }
  });

  it('keeps the position of a frame without data, and starts from the one it is given', () => {
    const { events, parser } = read(['id: 7\n\n'], '3');
    expect(events).toEqual([]);
    expect(parser.lastEventId).toBe('7');
    const resumed = read(['event: change\ndata: 1\n\n'], '3');
    expect(resumed.events).toEqual([{ event: 'change', data: '1', lastEventId: '3' }]);
  });

  it('drops an event the stream did not finish, and its id', () => {
    const { events, parser } = read(['id: 1\ndata: a\n\nid: 2\ndata: b\n']);
    parser.end();
    parser.push('\n');
    expect(events).toEqual([{ event: 'message', data: 'a', lastEventId: '1' }]);
    expect(parser.lastEventId).toBe('1');
  });

  it('ignores comments, unknown fields, a retry that is not a number, and an id with NUL', () => {
    const { events, retries } = read([':comment\nfoo: bar\nretry: 1s\nid: a\0b\ndata: d\n\n']);
    expect(events).toEqual([{ event: 'message', data: 'd', lastEventId: '' }]);
    expect(retries).toEqual([]);
  });
});
