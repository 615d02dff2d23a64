/** Thrown by a custom filter or scope to reject the client's value: answered as a 422 on the filter. */
export class FilterValueError extends Error {
  override name = 'FilterValueError';
}
