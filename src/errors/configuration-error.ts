/** A configuration the service cannot serve: thrown at start-up, with every mismatch it found. */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}
