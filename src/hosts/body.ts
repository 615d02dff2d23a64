import type { IncomingMessage } from 'node:http';
import { RequestError } from '../errors/request-error.js';

function tooLarge(limit: number): RequestError {
  return RequestError.single(413, 'body', `The body is larger than the ${limit} bytes this route accepts.`);
}

/** A length the client declared over the limit is refused before a byte is read. */
function declaredTooLarge(length: string | null | undefined, limit: number): boolean {
  return length !== undefined && length !== null && Number(length) > limit;
}

/**
 * A Node request's body as text, refused with 413 past `limit` bytes. Written here because the hosts
 * that hand over a raw Node request (Express without a body parser) have no limit-aware reader of
 * their own to lend; the core needs the same limit on every host.
 */
export async function readNodeBody(request: IncomingMessage, limit: number): Promise<string> {
  if (declaredTooLarge(request.headers['content-length'], limit)) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > limit) {
      request.resume();
      throw tooLarge(limit);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A fetch `Request`'s body as text, refused with 413 past `limit` bytes (`request.text()` has no limit). */
export async function readWebBody(request: Request, limit: number): Promise<string> {
  if (declaredTooLarge(request.headers.get('content-length'), limit)) throw tooLarge(limit);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
