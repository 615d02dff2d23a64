/** Thrown by a custom filter or scope to reject the client's value: answered as a 422 on the filter. */
export class FilterValueError extends Error {
  override name = 'FilterValueError';
}

/**
 * Also a FilterValueError from another copy of this package (a configuration loaded from source next
 * to a built service, two installs in one tree): `instanceof` alone would answer its 422 with a 500.
 */
export function isFilterValueError(error: unknown): error is FilterValueError {
  return error instanceof FilterValueError || (error instanceof Error && error.name === 'FilterValueError');
}
