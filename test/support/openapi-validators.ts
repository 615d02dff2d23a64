import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument } from '../../src/openapi/index.js';

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext's types.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The `$id` the tests give a served document, which the refs into it start with. */
export const DOCUMENT_ID = 'https://service.test/openapi.json';

/** A JSON pointer's path (`#/…` after DOCUMENT_ID) of `segments`, each escaped. */
export const pointer = (...segments: string[]): string =>
  segments.map((segment) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

/**
 * ajv holding `document` (strict off: it skips the OpenAPI keywords around the schemas, such as paths,
 * responses and example), and the validator of a schema in it by its ref, compiled once: ajv caches by
 * the schema object, and a `{ $ref }` is a new one at each call.
 */
export function documentValidators(
  document: OpenApiDocument,
  options: { allErrors: boolean },
): (ref: string) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: options.allErrors });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const compiled = new Map<string, ValidateFunction>();
  return (ref) => {
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate;
  };
}
