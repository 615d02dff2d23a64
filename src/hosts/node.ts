import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  closedBeforeAnswer,
  type ServiceLogger,
  type ServiceRequest,
  type ServiceResponse,
} from '../core/exchange.js';
import { readNodeBody } from './body.js';

/** A request of Node's own HTTP server as the core's request. */
export function fromNodeRequest(
  request: IncomingMessage,
  response: ServerResponse,
  log: ServiceLogger,
): ServiceRequest {
  return {
    method: request.method ?? 'GET',
    url: request.url ?? '/',
    headers: request.headers,
    protocol: (request.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http',
    // The service reads no body of a GET or HEAD: no reader made for the reads, the requests made most.
    body:
      request.method === 'GET' || request.method === 'HEAD'
        ? undefined
        : (limit) => readNodeBody(request, limit),
    signal: closedBeforeAnswer(response),
    log,
  };
}

/** Statuses whose response has no body, and so no length (RFC 9110 §6.4.1). */
const bodiless = new Set([204, 304]);

/**
 * The core's response on Node's response: a text with its length, written at once; a stream piped
 * (and stopped, its rows' query with it, when the client goes away), whose end the promise tells.
 */
export function writeNodeResponse(
  response: ServerResponse,
  answer: ServiceResponse,
): Promise<void> | undefined {
  const { status, headers, body } = answer;
  if (typeof body !== 'string') {
    response.writeHead(status, headers);
    return pipeline(Readable.from(body), response);
  }
  if (bodiless.has(status)) {
    response.writeHead(status, headers);
    response.end();
    return undefined;
  }
  // Node takes headers as a flat list of names and values too: one array rather than a copy of the
  // answer's headers with its length added, and Node walks it without an own-property check per name.
  const raw: (string | number)[] = ['content-length', Buffer.byteLength(body)];
  for (const name in headers) raw.push(name, headers[name] as string);
  response.writeHead(status, raw);
  response.end(body);
  return undefined;
}
