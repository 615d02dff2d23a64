import { readRefusalError, refusalError, timeoutError } from '../errors/refusal.js';
import { RequestError } from '../errors/request-error.js';
import type { Connection } from '../sql/connect.js';
import { QueryCancelled, QueryTimeout } from '../sql/dialect.js';
import { json, type ServiceLogger, type ServiceResponse } from './exchange.js';

/** Without a host logger a failure still leaves a trace; a refusal the client is told about does not. */
export const fallbackLogger: ServiceLogger = {
  warn: () => {},
  error: (details, message) => console.error(message, details),
};

/**
 * Any error of any stage as the client's answer, in the envelope: the client's mistakes (4xx), a
 * statement stopped (503), a refusal of the database (503/409/422); anything else is logged and
 * answered 500 without its details.
 */
export async function answerError(
  error: unknown,
  connection: Connection,
  log: ServiceLogger = fallbackLogger,
  method = 'GET',
): Promise<ServiceResponse> {
  if (RequestError.is(error)) {
    // A part the service depends on failed (an identity provider): the client is told to retry, the log why.
    if (error.status >= 500) log.warn({ err: error.cause ?? error }, error.message);
    return json(error.status, error.envelope, { ...(error.headers ?? {}) });
  }
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return json(status, { message: (error as Error).message, errors: {} });
  if (error instanceof QueryTimeout || error instanceof QueryCancelled) {
    // The database was told to stop the statement: past the endpoint's timeout (the operator's to know),
    // or for a client that left — no failure of the service, and no one to read the answer: not logged
    // (a page closed mid-request would otherwise be a warning with a stack).
    if (error instanceof QueryTimeout) log.warn({ err: error }, error.message);
    const answer = timeoutError(error instanceof QueryTimeout ? error.ms : undefined);
    return json(answer.status, answer.envelope, { ...answer.headers });
  }
  // A refusal of the database is the client's answer (503, 409, 422); its cause goes to the log only.
  const refusal = await connection.dialect.refusal(error, connection.db).catch(() => undefined);
  if (refusal) {
    log.warn({ err: error }, `database refused the request (${refusal.kind})`);
    // A read writes nothing: what the database refused there is a value of the query string.
    const answer = method === 'GET' || method === 'HEAD' ? readRefusalError(refusal) : refusalError(refusal);
    return json(answer.status, answer.envelope, { ...answer.headers });
  }
  log.error({ err: error }, 'request failed');
  return json(500, { message: 'Internal server error.', errors: {} });
}
