import type { FastifyInstance } from 'fastify';
import type { CompiledEndpoint } from '../plan/endpoint.js';
import { coerceForColumn } from '../plan/values.js';
import type { ResourceRecord } from '../resource/policy.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { ErrorBag, RequestError } from '../respond/error-bag.js';
import { rowReader } from '../respond/normalize.js';
import { type Field, refusalError } from '../respond/refusal.js';
import { buildSchemaDocument } from '../schema/document.js';
import { bodyLimit, planUpdate, prepareInputs } from '../schema/update.js';
import { endpointConditions } from '../sql/compile.js';
import type { Connection } from '../sql/connect.js';
import type { Refusal } from '../sql/dialect.js';
import { visibleSelection } from '../sql/selection.js';

/** `GET <prefix>/v1/<path>/schema` and `PATCH <form.endpoint>/:id`, for an endpoint that declares a schema. */
export function registerResourceRoutes(
  app: FastifyInstance,
  endpoint: CompiledEndpoint,
  connection: Connection,
  prefix: string,
): void {
  const declaration = endpoint.policy.schema;
  if (!declaration) return;
  const listPath = `${prefix}/${endpoint.path}`;
  const document = buildSchemaDocument(endpoint, declaration, listPath);
  const inputs = prepareInputs(endpoint.resource, declaration.form?.inputs ?? []);
  const { resource, policy } = endpoint;
  const { db, dialect } = connection;
  const read = rowReader(resource);
  const transform = policy.response ?? ((record: ResourceRecord): unknown => record);
  const notFound = () => RequestError.single(404, 'id', `No ${resource.name} record with this id.`);

  app.get(`${prefix}/v1/${endpoint.path}/schema`, async () => document);

  const fieldOf = (column: string): Field => {
    const input = inputs.find((candidate) => candidate.column.name === column);
    const name = input?.declaration.name ?? column;
    return { key: name, label: input?.declaration.label ?? name };
  };
  const foreignKeys = new Set(
    [...resource.relations.values()].filter((r) => r.kind === 'belongsTo').map((r) => r.parentKey),
  );
  /**
   * The fields a refused update concerns: the columns the engine named, or else the one written column
   * the rule can be about (PostgreSQL names no column for a value too long or out of range, SQLite none
   * for a foreign key); several candidates, or none, key the error `body`.
   */
  const refusedFields = (refusal: Refusal, written: readonly string[]): Field[] => {
    if (refusal.kind === 'unavailable') return [];
    const named = refusal.columns.filter((column) => resource.columns.has(column));
    if (named.length > 0) return named.map(fieldOf);
    const fits = (column: string): boolean => {
      const type = resource.columns.get(column)?.type;
      if (refusal.kind === 'too-long') return type === 'string';
      if (refusal.kind === 'out-of-range') return type === 'integer' || type === 'decimal';
      if (refusal.kind === 'foreign-key') return foreignKeys.has(column);
      return false;
    };
    const candidates = written.filter(fits);
    return candidates.length === 1 ? candidates.map(fieldOf) : [];
  };

  /** The record as the endpoint sees it: soft-deleted rows and rows outside `baseQuery` do not exist. */
  const findRecord = async (id: unknown): Promise<ResourceRecord | undefined> => {
    const row = await db
      .selectFrom(`${resource.table} as t0`)
      .select(visibleSelection(resource, 't0'))
      .where((eb: DynamicExpressionBuilder) =>
        eb.and([eb(`t0.${resource.primaryKey}`, '=', id), ...endpointConditions(eb, resource, policy, 't0')]),
      )
      .executeTakeFirst();
    return row ? read(row as Record<string, unknown>) : undefined;
  };

  app.patch<{ Params: { id: string } }>(
    `${document.form.endpoint}/:id`,
    { bodyLimit: bodyLimit(inputs) },
    async (request) => {
      // Fastify also parses text/plain; PATCH accepts JSON only.
      if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? ''))
        throw RequestError.single(415, 'body', 'The body must be JSON (Content-Type: application/json).');
      const key = resource.columns.get(resource.primaryKey);
      const id = key ? coerceForColumn(key, request.params.id) : undefined;
      if (!id?.ok) throw notFound();
      const stored = await findRecord(id.value);
      if (!stored) throw notFound();
      const body = request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw RequestError.single(422, 'body', 'The body must be a JSON object of the fields to change.');
      const errors = new ErrorBag();
      const update = await planUpdate(body as Record<string, unknown>, inputs, stored, dialect, errors);
      if (!errors.isEmpty) throw new RequestError(422, errors.toEnvelope());
      if (Object.keys(update.values).length > 0)
        await db
          .updateTable(resource.table)
          .set(update.values)
          .where(resource.primaryKey, '=', id.value)
          .execute()
          .catch(async (error: unknown) => {
            const refusal = await dialect.refusal(error, db, resource.table);
            if (!refusal) throw error;
            request.log.warn({ err: error }, `database refused the update (${refusal.kind})`);
            throw refusalError(refusal, refusedFields(refusal, Object.keys(update.values)));
          });
      const updated = await findRecord(id.value);
      if (!updated) throw notFound();
      return transform(updated);
    },
  );
}
