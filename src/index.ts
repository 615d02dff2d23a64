export type {
  BodyReader,
  ServiceLogger,
  ServiceRequest,
  ServiceResponse,
  ServiceRoute,
} from './core/exchange.js';
export { type CreateServiceOptions, createService, type ResourceService } from './core/service.js';
export { ConfigurationError } from './errors/configuration-error.js';
export { ErrorBag, type ErrorEnvelope } from './errors/error-bag.js';
export { FilterValueError } from './errors/filter-value-error.js';
export { RequestError } from './errors/request-error.js';
export { type FastifyPluginOptions, resourceQueryPlugin } from './hosts/fastify.js';
export { type InitOptions, type InitResult, init } from './init/index.js';
export { buildOpenApi, type OpenApiDocument, renderTypes } from './openapi/index.js';
export { type OperatorName, operatorNames } from './plan/operators.js';
export type { Limits } from './request/limits.js';
export { defaultLimits } from './request/limits.js';
export type { LiveChange, LiveChangeType, LiveReset } from './request/live.js';
export {
  type EqualityScope,
  everyRow,
  type ScopeValues,
  scopeByColumn,
} from './resource/equality-scope.js';
export {
  type AccessRule,
  type AccessRules,
  type Action,
  type AllLimit,
  type AllowedFilter,
  type ContextRequest,
  type CustomFilter,
  type DefaultFilter,
  defineEndpoint,
  defineResource,
  type EndpointPolicy,
  Filter,
  type LiveOptions,
  type OpenApiOptions,
  type ResourceRecord,
  type ServiceConfig,
  type TotalStrategy,
} from './resource/policy.js';
export { belongsTo, belongsToMany, hasMany, hasOne } from './resource/relations.js';
export type * from './resource/schema-declaration.js';
export type * from './resource/types.js';
export { shippedAdminDir } from './server/admin.js';
export { type BearerOptions, bearerContext, bearerOptionsFrom } from './server/bearer.js';
export { defineConfig, type StandaloneConfig } from './server/config.js';
export { buildService, type ServiceOptions } from './server/standalone.js';
export { type Connection, connect, dialectFor } from './sql/connect.js';
export type { ConnectOptions, DialectName, SqlDialect } from './sql/dialect.js';
