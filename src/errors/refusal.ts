import { RequestError } from './request-error.js';

/**
 * What a database's refusal means for the client, whatever engine said it: the service is unavailable
 * (no connection, the server going away, a lock it cannot get), or the request's data broke a rule of
 * the table — with the columns concerned where the engine names them.
 */
export type Refusal =
  | { readonly kind: 'unavailable' }
  | {
      readonly kind:
        | 'unique'
        | 'foreign-key'
        | 'not-null'
        | 'too-long'
        | 'out-of-range'
        | 'check'
        | 'invalid';
      readonly columns: readonly string[];
    };

/** Seconds a client is asked to wait before retrying a request the database could not serve. */
export const RETRY_AFTER_SECONDS = 5;

/** The field a client wrote for a column: its key in the error map and the label its messages use. */
export interface Field {
  readonly key: string;
  readonly label: string;
}

const messages: Record<Exclude<Refusal['kind'], 'unavailable'>, (label: string) => string> = {
  unique: (label) => `This ${label} is already taken.`,
  'foreign-key': (label) => `The selected ${label} does not exist.`,
  'not-null': (label) => `The ${label} field is required.`,
  'too-long': (label) => `The ${label} field is too long for the database.`,
  'out-of-range': (label) => `The ${label} field is out of the range the database stores.`,
  check: (label) => `The ${label} field breaks a rule of the database.`,
  invalid: (label) => `The ${label} field has a value the database cannot store.`,
};

/**
 * A refusal of the database as the client's answer: 503 with `Retry-After` when it is unavailable;
 * 409 for a unique value already taken; 422 for the other rules. `fields` are the fields the rule
 * concerns (empty when the engine did not say: then the error is keyed `body`).
 */
export function refusalError(refusal: Refusal, fields: readonly Field[] = []): RequestError {
  if (refusal.kind === 'unavailable') {
    const message = 'The database is unavailable; try again in a few seconds.';
    return new RequestError(
      503,
      { message, errors: { database: [message] } },
      { 'retry-after': String(RETRY_AFTER_SECONDS) },
    );
  }
  const status = refusal.kind === 'unique' ? 409 : 422;
  const named = fields.length > 0 ? fields : [{ key: 'body', label: 'value' }];
  const errors: Record<string, string[]> = {};
  for (const field of named) errors[field.key] = [messages[refusal.kind](field.label)];
  const first = Object.values(errors)[0]?.[0] ?? '';
  return new RequestError(status, { message: first, errors });
}

/**
 * A refusal of a read: 503 when the database is unavailable; otherwise a value of the query string
 * the column's type cannot hold (a value the column's kind let through, such as an IPv4 address for
 * MariaDB's INET6), keyed `filter` — never `body`, which a read has not.
 */
export function readRefusalError(refusal: Refusal): RequestError {
  if (refusal.kind === 'unavailable') return refusalError(refusal);
  const message = 'A filter value is not one the database can compare with its column.';
  return new RequestError(422, { message, errors: { filter: [message] } });
}

/** A statement stopped past the endpoint's timeout (or for a client that left): 503, retry later. */
export function timeoutError(ms: number | undefined): RequestError {
  const message =
    ms === undefined ? 'The request was cancelled.' : `The query took longer than ${ms} ms and was stopped.`;
  return new RequestError(
    503,
    { message, errors: { query: [message] } },
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  );
}
