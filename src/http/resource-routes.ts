import type { FastifyInstance } from 'fastify';
import type { CompiledEndpoint } from '../plan/endpoint.js';
import { coerceForColumn } from '../plan/values.js';
import type { ResourceRecord } from '../resource/policy.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { ErrorBag, RequestError } from '../respond/error-bag.js';
import { rowReader } from '../respond/normalize.js';
import { buildSchemaDocument } from '../schema/document.js';
import { planUpdate, prepareInputs } from '../schema/update.js';
import { endpointConditions } from '../sql/compile.js';
import type { Connection } from '../sql/connect.js';
import { visibleSelection } from '../sql/selection.js';

/** Largest PATCH body, in bytes. */
const BODY_LIMIT = 64 * 1024;

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
    { bodyLimit: BODY_LIMIT },
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
          .execute();
      const updated = await findRecord(id.value);
      if (!updated) throw notFound();
      return transform(updated);
    },
  );
}
