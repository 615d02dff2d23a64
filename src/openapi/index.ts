/** The OpenAPI 3.1 document of a service and the TypeScript types made from it. */
export {
  buildOpenApi,
  type OpenApiDocument,
  type OpenApiEndpoint,
  type OpenApiInput,
  type ResourceSummary,
} from './document.js';
export type { JsonSchema } from './schemas.js';
export { renderTypes } from './typescript.js';
