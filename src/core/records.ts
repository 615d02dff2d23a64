import secureJson from 'secure-json-parse';
import type { CompiledEndpoint } from '../plan/endpoint.js';
import { coerceForColumn } from '../plan/values.js';
import type { ResourceRecord } from '../resource/policy.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { ErrorBag, RequestError } from '../respond/error-bag.js';
import { rowReader } from '../respond/normalize.js';
import { type Field, refusalError } from '../respond/refusal.js';
import { buildSchemaDocument } from '../schema/document.js';
import type { SchemaDocument } from '../schema/types.js';
import { bodyLimit, planUpdate, prepareInputs } from '../schema/update.js';
import { endpointConditions } from '../sql/compile.js';
import type { Connection } from '../sql/connect.js';
import type { DynamicDb, Refusal } from '../sql/dialect.js';
import { visibleSelection } from '../sql/selection.js';
import type { BodyReader, ServiceLogger } from './exchange.js';

/** One PATCH request as the core hands it over. */
export interface UpdateCall {
  /** The id segment of the path, decoded. */
  readonly id: string;
  readonly contentType: string | undefined;
  readonly body: BodyReader | undefined;
  readonly ctx: unknown;
  readonly log: ServiceLogger;
}

/** The schema document and PATCH of an endpoint that declares a schema. */
export interface RecordRoutes {
  readonly schemaPath: string;
  /** PATCH `<formPath>/:id`. */
  readonly formPath: string;
  readonly bodyLimit: number;
  /** The document as this context may use it: no form inputs when it may not update. */
  document(canUpdate: boolean): SchemaDocument;
  update(call: UpdateCall): Promise<unknown>;
}

/** JSON text → value; `__proto__` and `constructor.prototype` keys are refused, as Fastify's parser does. */
function parseJson(text: string): unknown {
  if (text.trim() === '') throw RequestError.single(400, 'body', 'The body is empty; send a JSON object.');
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw RequestError.single(400, 'body', 'The body is not valid JSON.');
  }
}

export function recordRoutes(
  endpoint: CompiledEndpoint,
  connection: Connection,
  prefix: string,
): RecordRoutes | undefined {
  const declaration = endpoint.policy.schema;
  if (!declaration) return undefined;
  const listPath = `${prefix}/${endpoint.path}`;
  const full = buildSchemaDocument(endpoint, declaration, listPath);
  const readOnly: SchemaDocument = { ...full, form: { ...full.form, readOnly: true, inputs: [] } };
  const inputs = prepareInputs(endpoint.resource, declaration.form?.inputs ?? []);
  const { resource, policy } = endpoint;
  const { db, dialect } = connection;
  const read = rowReader(resource);
  const notFound = () => RequestError.single(404, 'id', `No ${resource.name} record with this id.`);

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

  /**
   * The record as the endpoint sees it for this context: soft-deleted rows, rows outside the
   * resource's scope and outside `baseQuery` do not exist.
   */
  const findRecord = async (
    id: unknown,
    ctx: unknown,
    from: DynamicDb = db,
  ): Promise<ResourceRecord | undefined> => {
    const row = await from
      .selectFrom(`${resource.table} as t0`)
      .select(visibleSelection(resource, 't0'))
      .where((eb: DynamicExpressionBuilder) =>
        eb.and([
          eb(`t0.${resource.primaryKey}`, '=', id),
          ...endpointConditions(eb, resource, policy, 't0', ctx),
        ]),
      )
      .executeTakeFirst();
    return row ? read(row as Record<string, unknown>) : undefined;
  };

  /**
   * The answer to a write that would take the record out of this context's reach (its row scope, the
   * endpoint's `baseQuery`): into another tenant, say. A lone reference to a row the context cannot
   * see gets the database's answer for a row that does not exist, so it reveals nothing.
   */
  const outOfReach = (written: readonly string[]): RequestError => {
    if (written.length === 1 && foreignKeys.has(written[0] as string))
      return refusalError({ kind: 'foreign-key', columns: written }, written.map(fieldOf));
    const message = `The change would take this ${resource.name} record out of your reach.`;
    const key = written.length === 1 ? fieldOf(written[0] as string).key : 'body';
    return RequestError.single(422, key, message);
  };
  const leftReach = new Error("the written record left the context's reach");

  const limit = bodyLimit(inputs);
  return {
    schemaPath: `${prefix}/v1/${endpoint.path}/schema`,
    formPath: full.form.endpoint,
    bodyLimit: limit,
    document: (canUpdate) => (canUpdate ? full : readOnly),
    async update({ id: rawId, contentType, body: readBody, ctx, log }: UpdateCall): Promise<unknown> {
      if (!/^application\/json\s*(;|$)/i.test(contentType ?? ''))
        throw RequestError.single(415, 'body', 'The body must be JSON (Content-Type: application/json).');
      const key = resource.columns.get(resource.primaryKey);
      const id = key ? coerceForColumn(key, rawId) : undefined;
      if (!id?.ok) throw notFound();
      const raw = readBody ? await readBody(limit) : '';
      const body = typeof raw === 'string' ? parseJson(raw) : raw.parsed;
      const stored = await findRecord(id.value, ctx);
      if (!stored) throw notFound();
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw RequestError.single(422, 'body', 'The body must be a JSON object of the fields to change.');
      const errors = new ErrorBag();
      const update = await planUpdate(body as Record<string, unknown>, inputs, stored, dialect, errors);
      if (!errors.isEmpty) throw new RequestError(422, errors.toEnvelope());
      const written = Object.keys(update.values);
      const updated =
        written.length === 0
          ? await findRecord(id.value, ctx)
          : await db
              .transaction()
              .execute(async (trx) => {
                const result = await trx
                  .updateTable(`${resource.table} as t0`)
                  .set(update.values)
                  // The lookup's conditions again: the row written is the one found, in this context's scope.
                  .where((eb: DynamicExpressionBuilder) =>
                    eb.and([
                      eb(`t0.${resource.primaryKey}`, '=', id.value),
                      ...endpointConditions(eb, resource, policy, 't0', ctx),
                    ]),
                  )
                  .executeTakeFirst();
                // Gone since the lookup (deleted meanwhile): nothing was written.
                if (Number(result.numUpdatedRows) === 0) return undefined;
                // And on the row as written (a row-level policy's WITH CHECK): a change that would move
                // it out of this context's reach is undone, never half-done behind a 404.
                const found = await findRecord(id.value, ctx, trx);
                if (!found) throw leftReach;
                return found;
              })
              .catch(async (error: unknown): Promise<never> => {
                if (error === leftReach) throw outOfReach(written);
                const refusal = await dialect.refusal(error, db, resource.table);
                if (!refusal) throw error;
                log.warn({ err: error }, `database refused the update (${refusal.kind})`);
                throw refusalError(refusal, refusedFields(refusal, written));
              });
      if (!updated) throw notFound();
      return policy.response ? policy.response(updated, ctx) : updated;
    },
  };
}
