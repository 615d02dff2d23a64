/**
 * A typed client of the service, for browsers and Node (only `fetch`): the schema index, schema
 * documents, lists, the records API (read one, create, update, delete, restore, with ETags), and live
 * subscriptions to lists and records (`createLiveClient`). URLs are resolved against `baseUrl`
 * (default: relative, for a page served by the service itself).
 */
export type { ValueShape } from '../kinds/operators.js';
export type { Action } from '../resource/policy.js';
export type {
  InputType,
  SelectOption,
  TableColumnType,
  VisibleWhen,
} from '../resource/schema-declaration.js';
export { labelFor } from '../resource/words.js';
export type {
  DetailCollection,
  DetailRelation,
  SchemaDocument,
  SchemaFilter,
  SchemaReferences,
} from '../schema/types.js';
export { isVisible } from '../schema/visible-when.js';
export * from './calls.js';
export {
  createLiveClient,
  type LiveChange,
  type LiveChangeType,
  type LiveClient,
  type LiveEvent,
  type LiveHeaders,
  type LiveOptions,
  type LiveReset,
  type LiveSubscriber,
  parseTopic,
  topicOf,
} from './live.js';
export {
  type AggregateQuery,
  buildAggregateQuery,
  buildListQuery,
  type ExportFormat,
  type ExportQuery,
  type FilterGroup,
  type FilterLeaf,
  type FilterNode,
  type FilterOperator,
  type FilterScalar,
  type FilterValue,
  type HavingOperator,
  isGroup,
  type ListQuery,
  operatorShape,
} from './query.js';
export { type SseEvent, SseParser, type SseParserOptions } from './sse.js';
export {
  createClient,
  type EndpointRoutes,
  filterNodes,
  type ResourceTypes,
  type TypedAggregateQuery,
  type TypedClient,
  type TypedEndpoint,
  type TypedExportQuery,
  type TypedListQuery,
  type TypedReadQuery,
} from './typed.js';
