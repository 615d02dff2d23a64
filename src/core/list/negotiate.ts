import Negotiator from 'negotiator';
import { type ExportFormat, exportFormats } from '../../request/list-request.js';
import { exportMediaTypes } from '../../respond/exports.js';

const JSON_MEDIA_TYPE = 'application/json';
/** JSON first: where the client likes several equally (`*\/*`), the list stays what it always was. */
const offered = [JSON_MEDIA_TYPE, ...exportFormats.map((format) => exportMediaTypes[format])];
const formatOf = new Map<string, ExportFormat>(
  exportFormats.map((format) => [exportMediaTypes[format], format]),
);
/** Cheap test before the parse: an Accept that names no export type cannot choose one. */
const namesExport = /csv|ndjson/i;

/**
 * The export format a request's `Accept` header prefers (q-values, specificity: jshttp's negotiator,
 * as Express reads Accept), among JSON and the exports this endpoint offers (those of `allowExport`, else `allowAll`).
 * Undefined: the JSON list. Only an Accept that names an export type can choose one, so `text/*` or
 * an Accept naming nothing the service makes still gets JSON, as it did before exports (no 406).
 */
export function acceptedExport(
  accept: string | string[] | undefined,
  exports: boolean,
): ExportFormat | undefined {
  if (!exports || accept === undefined) return undefined;
  const header = Array.isArray(accept) ? accept.join(', ') : accept;
  if (!namesExport.test(header)) return undefined;
  const chosen = new Negotiator({ headers: { accept: header } }).mediaType(offered);
  return chosen === undefined ? undefined : formatOf.get(chosen);
}
