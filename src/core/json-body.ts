import secureJson from 'secure-json-parse';
import { RequestError } from '../errors/request-error.js';

/**
 * A request body's JSON text → value; `__proto__` and `constructor.prototype` keys are refused, as
 * Fastify's parser does.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw RequestError.single(400, 'body', 'The body is empty; send a JSON object.');
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw RequestError.single(400, 'body', 'The body is not valid JSON.');
  }
}
