import { ErrorBag } from '../errors/error-bag.js';
import { type Field, type Refusal, refusalError } from '../errors/refusal.js';
import { RequestError } from '../errors/request-error.js';
import { type ChangeCapture, imageText, noCapture } from '../live/capture.js';
import { readerOf, rowReader } from '../load/row-reader.js';
import type { CompiledEndpoint } from '../plan/endpoint.js';
import { coerceForColumn } from '../plan/values.js';
import type { ResourceRecord } from '../resource/policy.js';
import type { ResolvedResource } from '../resource/registry.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { buildSchemaDocument } from '../schema/document.js';
import type { DetailRelated, SchemaDocument } from '../schema/types.js';
import { bodyLimit, type LinkTarget, planUpdate, prepareInputs } from '../schema/update.js';
import { endpointConditions, resourceConditions } from '../sql/conditions.js';
import type { Connection } from '../sql/connect.js';
import { type DynamicDb, withStatementOptions } from '../sql/dialect.js';
import { visibleSelection } from '../sql/selection.js';
import { storedDatetime } from '../sql/storage.js';
import type { BodyReader, ServiceLogger } from './exchange.js';
import { parseJsonBody } from './json-body.js';
import { digestTag, ifMatchHolds } from './validators.js';

/** One write request on a record as the core hands it over. */
export interface WriteCall {
  /** The id segment of the path, decoded (absent for create). */
  readonly id?: string;
  readonly contentType?: string;
  readonly body?: BodyReader;
  /** The `If-Match` header, when sent. */
  readonly ifMatch?: string;
  readonly ctx: unknown;
  readonly log: ServiceLogger;
}

/** A record written: its answer (through the transformer), its ETag and, for create, its id. */
export interface Written {
  readonly answer: unknown;
  readonly etag: string;
  readonly id: unknown;
}

/** The schema document and the writes of one endpoint. */
export interface RecordRoutes {
  /** Where records are created and addressed by id: the form's endpoint, else the list's path. */
  readonly formPath: string;
  readonly schemaPath: string | undefined;
  /** The largest body create and PATCH read. */
  readonly bodyLimit: number;
  /** The document, or undefined without a schema. `readOnly`: the context may not update. */
  document(actions: SchemaDocument['table']['actions'], readOnly: boolean): SchemaDocument | undefined;
  create(call: WriteCall): Promise<Written>;
  update(call: WriteCall): Promise<Written>;
  remove(call: WriteCall): Promise<void>;
  restore(call: WriteCall): Promise<Written>;
  /**
   * The link sets a record's ETag covers (its form's `references` inputs, when the resource keeps no
   * version column): undefined when it covers none. Read-one digests them with the stored record.
   */
  readonly linkSets?: (stored: ResourceRecord, ctx: unknown) => Promise<LinkSets>;
}

/** The keys a record is linked to, by relation name, in key order: what its `references` inputs set. */
export type LinkSets = Record<string, unknown[]>;

/**
 * A record's ETag: its version when the resource keeps one, else a digest of its stored visible
 * columns (what read-one, PATCH and DELETE all see, before includes, counts and the transformer) and,
 * where the endpoint's form sets many-to-many links, of the keys each is linked to.
 */
export function etagOf(
  resource: ResolvedResource,
  stored: ResourceRecord,
  /** `JSON.stringify(stored)`, when the caller has it already (read-one answers that very text). */
  storedJson?: string,
  links?: LinkSets,
): string {
  if (resource.versionColumn) return `"v${String(stored[resource.versionColumn])}"`;
  const json = storedJson ?? JSON.stringify(stored);
  return digestTag(links ? `${json}\n${JSON.stringify(links)}` : json);
}

/**
 * Whether a written value is the one stored: compared as text, since a bound value and the value read
 * back may differ in type (a number and a bigint's string).
 */
const sameValue = (stored: unknown, written: unknown): boolean =>
  stored !== undefined && stored !== null && String(stored) === String(written);

const stale = () => {
  const message = 'The record has changed since you read it: read it again, then retry.';
  return new RequestError(412, { message, errors: { record: [message] } });
};

/** The alias of a row's change-log image in the locked lookup of a write. */
const IMAGE = 'live_image_before';

/** Thrown inside a transaction to roll it back; answered outside it. */
class Rollback extends Error {
  constructor(readonly answer: RequestError) {
    super(answer.message);
  }
}

/** A database refusal of a link's statement, with the input it concerns (the pivot names no column of the record). */
class LinkRefused extends Error {
  constructor(
    readonly error: unknown,
    readonly field: Field,
  ) {
    super('link refused');
  }
}

/** A `references` input of the form, with what the write needs of it. */
interface LinkInput {
  readonly field: Field;
  readonly link: LinkTarget;
  readonly read: (value: unknown) => unknown;
}

/** What a write does to one relation's links: the keys it removes (as stored) and adds (as bound). */
interface LinkChange {
  readonly input: LinkInput;
  readonly removed: unknown[];
  readonly added: unknown[];
}

export function recordRoutes(
  endpoint: CompiledEndpoint,
  connection: Connection,
  prefix: string,
  related: DetailRelated,
  /** The schema document's path of a resource, when an endpoint serves one (a references input's). */
  schemaPathOf: (resource: string) => string | null = () => null,
  /** How the writes record their changes for live streams (nothing without them). */
  capture: ChangeCapture = noCapture,
): RecordRoutes {
  const { resource, policy } = endpoint;
  const declaration = policy.schema;
  const listPath = `${prefix}/${endpoint.path}`;
  const full = declaration
    ? buildSchemaDocument(endpoint, declaration, listPath, related, schemaPathOf)
    : undefined;
  const inputs = prepareInputs(resource, declaration?.form?.inputs ?? []);
  const { db, dialect } = connection;
  const read = rowReader(resource);
  const notFound = () => RequestError.single(404, 'id', `No ${resource.name} record with this id.`);
  // Records are written by one key column: an endpoint over a composite key has no write actions
  // (compileEndpoint refuses them), so these routes are never reached for one.
  const primaryKey = resource.primaryKey ?? '';
  const key = resource.columns.get(primaryKey);
  const idOf = (raw: string | undefined): unknown => {
    const id = key && raw !== undefined ? coerceForColumn(key, raw) : undefined;
    if (!id?.ok) throw notFound();
    return id.value;
  };

  const fieldOf = (column: string): Field => {
    const input = inputs.find((candidate) => candidate.column?.name === column);
    const name = input?.declaration.name ?? column;
    return { key: name, label: input?.declaration.label ?? name };
  };
  const foreignKeys = new Set(
    [...resource.relations.values()].filter((r) => r.kind === 'belongsTo').map((r) => r.parentKey),
  );
  const belongsTo = [...resource.relations.values()].filter((r) => r.kind === 'belongsTo');
  const linkInputs: LinkInput[] = inputs.flatMap((input) => {
    if (!input.link) return [];
    const { name, label } = input.declaration;
    const read = readerOf(input.link.key) ?? ((value: unknown) => value);
    return [{ field: { key: name, label: label ?? name }, link: input.link, read }];
  });
  /** The ETag covers the link sets where the form sets some and no version column tells a change. */
  const tagsLinks = linkInputs.length > 0 && !resource.versionColumn;
  /** The value the pivot holds for this record: its key, or the relation's parent column. */
  const parentOf = (input: LinkInput, stored: ResourceRecord, id: unknown): unknown =>
    input.link.relation.parentKey === primaryKey ? id : stored[input.link.relation.parentKey];
  /**
   * The fields a refused write concerns: the columns the engine named, or else the one written column
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
   * The record as the endpoint sees it for this context: soft-deleted rows (unless `trashed`: then
   * only those), rows outside the resource's scope and outside `baseQuery` do not exist. `lock` holds
   * the row until the transaction ends where the engine can (the others serialize their writers).
   */
  const recordQuery = (
    id: unknown,
    ctx: unknown,
    from: DynamicDb,
    options: { lock?: boolean; trashed?: boolean },
  ) => {
    const query = from
      .selectFrom(`${resource.table} as t0`)
      .select(visibleSelection(resource, 't0', dialect))
      .where((eb: DynamicExpressionBuilder) =>
        eb.and([
          eb(`t0.${primaryKey}`, '=', id),
          ...endpointConditions(eb, resource, policy, 't0', ctx, options.trashed),
          ...(options.trashed && resource.softDeleteColumn
            ? [eb(`t0.${resource.softDeleteColumn}`, 'is not', null)]
            : []),
        ]),
      );
    return options.lock && dialect.rowLocks ? query.forUpdate() : query;
  };
  const findRecord = async (
    id: unknown,
    ctx: unknown,
    from: DynamicDb = db,
    options: { lock?: boolean; trashed?: boolean } = {},
  ): Promise<ResourceRecord | undefined> => {
    const row = await recordQuery(id, ctx, from, options).executeTakeFirst();
    return row ? read(row as Record<string, unknown>) : undefined;
  };

  /**
   * The references a create or PATCH sets must lead to rows this context can read: each is looked up in
   * its target's scope, soft-deleted rows left out (a new reference to one would read back as `null`),
   * inside the write's transaction and before the write. A reference into another tenant, to a
   * soft-deleted row or to nothing gets one answer, keyed by its field, so no write tells another
   * tenant's ids from missing ones, nor keeps them; and the database's own foreign-key refusal, which
   * names no column on SQLite, never decides the wording. A PATCH that sends a reference back as stored
   * changes nothing and shows nothing the record does not: it is not looked up, so a record whose parent
   * was deleted since stays editable. Every reference is looked up, whatever the first answers.
   */
  const checkReferences = async (
    trx: DynamicDb,
    values: Record<string, unknown>,
    ctx: unknown,
    stored: ResourceRecord = {},
    changes: readonly LinkChange[] = [],
  ): Promise<void> => {
    const refused: Field[] = [];
    const columns: string[] = [];
    for (const relation of belongsTo) {
      const column = relation.parentKey;
      const value = values[column];
      if (value === undefined || value === null || sameValue(stored[column], value)) continue;
      if (!(await allReachable(trx, relation.target, relation.childKey, [value], ctx))) {
        columns.push(column);
        refused.push(fieldOf(column));
      }
    }
    // A link is a reference too: each key it adds is looked up the same way, in one statement; a key
    // kept (linked already, and in reach, or it would not be in the set read) is not looked up again.
    for (const { input, added } of changes) {
      if (added.length === 0) continue;
      const { relation, key } = input.link;
      if (!(await allReachable(trx, relation.target, key.name, added, ctx))) refused.push(input.field);
    }
    if (refused.length === 0) return;
    throw new Rollback(refusalError({ kind: 'foreign-key', columns }, refused));
  };

  /**
   * Whether every one of `values` (distinct values of the target's column `column`) names a row this
   * context can read: in the target's scope, not soft-deleted.
   */
  const allReachable = async (
    trx: DynamicDb,
    target: ResolvedResource,
    column: string,
    values: readonly unknown[],
    ctx: unknown,
  ): Promise<boolean> => {
    const row = await trx
      .selectFrom(`${target.table} as r`)
      .select((eb: DynamicExpressionBuilder) =>
        eb.fn
          .count(eb.ref(`r.${column}`))
          .distinct()
          .as('n'),
      )
      .where((eb: DynamicExpressionBuilder) =>
        eb.and([
          values.length === 1 ? eb(`r.${column}`, '=', values[0]) : eb(`r.${column}`, 'in', values),
          ...resourceConditions(eb, target, 'r', ctx),
        ]),
      )
      .executeTakeFirst();
    return Number((row as { n?: unknown } | undefined)?.n ?? 0) === values.length;
  };

  /**
   * The keys of one relation a record is linked to, as this context sees them: links to related rows
   * out of its reach (another scope, soft-deleted) are neither shown nor replaced, as an include shows
   * none of them. In key order; `raw` as the pivot stores them.
   */
  const linkedKeys = async (from: DynamicDb, input: LinkInput, parent: unknown, ctx: unknown) => {
    const { relation, key } = input.link;
    const pivot = relation.pivot as NonNullable<typeof relation.pivot>;
    const { target } = relation;
    const rows = (await from
      .selectFrom(`${pivot.table} as p`)
      .innerJoin(`${target.table} as r`, `r.${key.name}`, `p.${pivot.childKey}`)
      .select([`p.${pivot.childKey} as raw`, `r.${key.name} as k`])
      .where((eb: DynamicExpressionBuilder) =>
        eb.and([eb(`p.${pivot.parentKey}`, '=', parent), ...resourceConditions(eb, target, 'r', ctx)]),
      )
      .orderBy(`r.${key.name}`)
      .execute()) as { raw: unknown; k: unknown }[];
    return rows;
  };

  /** The link sets of a record, for its answer and its ETag. */
  const linkSetsOf = async (
    from: DynamicDb,
    stored: ResourceRecord,
    id: unknown,
    ctx: unknown,
  ): Promise<LinkSets> => {
    const sets: LinkSets = {};
    for (const input of linkInputs) {
      const rows = await linkedKeys(from, input, parentOf(input, stored, id), ctx);
      sets[input.link.relation.name] = rows.map((row) => input.read(row.k));
    }
    return sets;
  };

  /**
   * What replacing each sent set changes: the links not in it removed, the new ones added, the kept
   * ones left as they are (a pivot's own columns kept). `parent` undefined: a record not yet created.
   */
  const linkChanges = async (
    trx: DynamicDb,
    links: ReadonlyMap<string, unknown[]>,
    parent: ((input: LinkInput) => unknown) | undefined,
    ctx: unknown,
  ): Promise<LinkChange[]> => {
    const changes: LinkChange[] = [];
    for (const input of linkInputs) {
      const wanted = links.get(input.link.relation.name);
      if (!wanted) continue;
      const current = parent ? await linkedKeys(trx, input, parent(input), ctx) : [];
      const keep = new Set(wanted.map((key) => String(key)));
      const have = new Set(current.map((row) => String(row.raw)));
      changes.push({
        input,
        removed: current.filter((row) => !keep.has(String(row.raw))).map((row) => row.raw),
        added: wanted.filter((key) => !have.has(String(key))),
      });
    }
    return changes;
  };

  /** The changes written: one DELETE of the removed links and one multi-row INSERT of the new, per relation. */
  const applyLinks = async (
    trx: DynamicDb,
    changes: readonly LinkChange[],
    parent: (input: LinkInput) => unknown,
  ): Promise<boolean> => {
    let changed = false;
    for (const { input, removed, added } of changes) {
      const pivot = input.link.relation.pivot as NonNullable<LinkTarget['relation']['pivot']>;
      const owner = parent(input);
      try {
        if (removed.length > 0)
          await trx
            .deleteFrom(pivot.table)
            .where((eb: DynamicExpressionBuilder) =>
              eb.and([eb(pivot.parentKey, '=', owner), eb(pivot.childKey, 'in', removed)]),
            )
            .execute();
        if (added.length > 0)
          await trx
            .insertInto(pivot.table)
            .values(added.map((key) => ({ [pivot.parentKey]: owner, [pivot.childKey]: key })))
            .execute();
      } catch (error) {
        throw new LinkRefused(error, input.field);
      }
      changed ||= removed.length > 0 || added.length > 0;
    }
    return changed;
  };

  /**
   * The answer to a write that would take the record out of this context's reach (its row scope, the
   * endpoint's `baseQuery`) although its references are in reach (`checkReferences` answered those).
   */
  const outOfReach = (values: Record<string, unknown>): RequestError => {
    const written = Object.keys(values);
    const message = `The change would take this ${resource.name} record out of your reach.`;
    const field = written.length === 1 ? fieldOf(written[0] as string).key : 'body';
    return RequestError.single(422, field, message);
  };

  /**
   * A write in one transaction: a `Rollback` answers with its error, a refusal of the database with
   * the fields it concerns (mapped after the rollback, on the pool). `conflict` is the status of a
   * foreign-key refusal: 409 for a delete (something still points here), 422 for a value written.
   */
  const transaction = <T>(
    work: (trx: DynamicDb) => Promise<T>,
    written: readonly string[],
    log: ServiceLogger,
    what: string,
  ): Promise<T> =>
    // Each statement of the write may run for the endpoint's `timeoutMs`, as a list's do: past it the
    // database is told to stop and the connection is closed, so a silent network cannot hold the write.
    withStatementOptions({ timeoutMs: endpoint.timeoutMs }, () => db.transaction().execute(work))
      .then((done) => {
        // Committed: live streams' hubs may read the change now.
        capture.committed();
        return done;
      })
      .catch(async (error: unknown): Promise<never> => {
        if (error instanceof Rollback) throw error.answer;
        const link = error instanceof LinkRefused ? error : undefined;
        const cause = link ? link.error : error;
        const refusal = await dialect.refusal(cause, db, resource.table);
        if (!refusal) throw cause;
        if (link && refusal.kind !== 'unavailable') {
          log.warn({ err: cause }, `database refused the links of the ${what} (${refusal.kind})`);
          throw refusalError(refusal, [link.field]);
        }
        log.warn({ err: error }, `database refused the ${what} (${refusal.kind})`);
        if (what === 'delete' && refusal.kind === 'foreign-key') {
          const message = `This ${resource.name} record is still referenced by other records.`;
          throw RequestError.single(409, 'record', message);
        }
        throw refusalError(refusal, refusedFields(refusal, written));
      });

  const limit = bodyLimit(inputs);
  const bodyOf = async ({ contentType, body }: WriteCall): Promise<Record<string, unknown>> => {
    if (!/^application\/json\s*(;|$)/i.test(contentType ?? ''))
      throw RequestError.single(415, 'body', 'The body must be JSON (Content-Type: application/json).');
    const raw = body ? await body(limit) : '';
    const value = typeof raw === 'string' ? parseJsonBody(raw) : raw.parsed;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw RequestError.single(422, 'body', 'The body must be a JSON object of the fields to write.');
    return value as Record<string, unknown>;
  };
  /**
   * A write's answer: the record as stored, with the keys of each relation its form links (`tracks:
   * [3, 7]`, the set as saved, in key order), through the transformer; its ETag covers those sets.
   */
  const answerOf = async (
    from: DynamicDb,
    stored: ResourceRecord,
    ctx: unknown,
    id: unknown,
  ): Promise<Written> => {
    if (linkInputs.length === 0)
      return {
        answer: policy.response ? policy.response(stored, ctx) : stored,
        etag: etagOf(resource, stored),
        id,
      };
    const sets = await linkSetsOf(from, stored, id, ctx);
    const record = { ...stored, ...sets };
    return {
      answer: policy.response ? policy.response(record, ctx) : record,
      etag: etagOf(resource, stored, undefined, tagsLinks ? sets : undefined),
      id,
    };
  };
  /** The lookup every write starts with: in scope, locked, and as the client last read it. */
  /**
   * The lookup every write starts with: in scope, locked, and as the client last read it; with the
   * row's image for the change log where live streams record the write (in the same statement).
   */
  const lockedCurrent = async (trx: DynamicDb, id: unknown, call: WriteCall, trashed = false) => {
    const query = recordQuery(id, call.ctx, trx, { lock: true, trashed });
    const row = (await (capture.image ? query.select(capture.image.as(IMAGE)) : query).executeTakeFirst()) as
      | Record<string, unknown>
      | undefined;
    if (!row) throw new Rollback(notFound());
    const { [IMAGE]: image, ...columns } = row;
    const stored = read(columns);
    if (call.ifMatch !== undefined) {
      const sets = tagsLinks ? await linkSetsOf(trx, stored, id, call.ctx) : undefined;
      if (!ifMatchHolds(call.ifMatch, etagOf(resource, stored, undefined, sets))) throw new Rollback(stale());
    }
    return { stored, before: imageText(image) };
  };
  const requireIfMatch = (call: WriteCall) => {
    if (policy.requireIfMatch && call.ifMatch === undefined) {
      const message =
        'Send If-Match with the ETag of the record you read: this endpoint refuses blind writes.';
      throw RequestError.single(428, 'if-match', message);
    }
  };
  const softDelete = resource.softDeleteColumn;
  const softDeleteStorage = softDelete ? resource.columns.get(softDelete)?.storage : undefined;

  return {
    ...(tagsLinks && {
      linkSets: (stored: ResourceRecord, ctx: unknown) => linkSetsOf(db, stored, stored[primaryKey], ctx),
    }),
    formPath: full?.form.endpoint ?? listPath,
    schemaPath: full ? `${prefix}/v1/${endpoint.path}/schema` : undefined,
    bodyLimit: limit,
    document(actions, readOnly) {
      if (!full) return undefined;
      const table = { ...full.table, actions };
      return readOnly
        ? { ...full, table, form: { ...full.form, readOnly: true, inputs: [] } }
        : { ...full, table };
    },

    async create(call) {
      const body = await bodyOf(call);
      const errors = new ErrorBag();
      const planned = await planUpdate(body, inputs, {}, dialect, errors, 'create');
      if (!errors.isEmpty) throw new RequestError(422, errors.toEnvelope());
      const written = Object.keys(planned.values);
      return transaction(
        async (trx) => {
          const version = resource.versionColumn;
          const values =
            version && !(version in planned.values) ? { ...planned.values, [version]: 1 } : planned.values;
          const changes = await linkChanges(trx, planned.links, undefined, call.ctx);
          await checkReferences(trx, values, call.ctx, {}, changes);
          const id = await dialect.insertRow(trx, resource.table, values, primaryKey);
          // The row as written must be one this context can see (its tenant, say), or nothing is kept.
          const stored = await findRecord(id, call.ctx, trx);
          if (!stored) throw new Rollback(outOfReach(values));
          // Its links, with its new key, in the same transaction: a refused one keeps no record.
          await applyLinks(trx, changes, (input) => parentOf(input, stored, id));
          await capture.created(trx, id);
          return answerOf(trx, stored, call.ctx, id);
        },
        written,
        call.log,
        'create',
      );
    },

    async update(call) {
      const id = idOf(call.id);
      requireIfMatch(call);
      const body = await bodyOf(call);
      // The columns written, for the refusal's fields (known once the body is planned).
      const written: string[] = [];
      return transaction(
        async (trx) => {
          const { stored, before } = await lockedCurrent(trx, id, call);
          const errors = new ErrorBag();
          const planned = await planUpdate(body, inputs, stored, dialect, errors, 'update');
          if (!errors.isEmpty) throw new Rollback(new RequestError(422, errors.toEnvelope()));
          written.push(...Object.keys(planned.values));
          const parent = (input: LinkInput) => parentOf(input, stored, id);
          const changes = await linkChanges(trx, planned.links, parent, call.ctx);
          const linksChange = changes.some((change) => change.removed.length + change.added.length > 0);
          if (written.length === 0 && !linksChange) return answerOf(trx, stored, call.ctx, id);
          await checkReferences(trx, planned.values, call.ctx, stored, changes);
          // The links first, then the columns, in one transaction: a refusal of either keeps neither.
          await applyLinks(trx, changes, parent);
          const version = resource.versionColumn;
          // Only links changed and no version column: no row to update (the ETag digests the links).
          if (written.length === 0 && !version) return answerOf(trx, stored, call.ctx, id);
          await trx
            .updateTable(`${resource.table} as t0`)
            .set((eb: DynamicExpressionBuilder) => ({
              ...planned.values,
              // A NULL version (a row written before versioning) becomes 1: the ETag must change.
              ...(version
                ? { [version]: eb(eb.fn.coalesce(eb.ref(`t0.${version}`), eb.lit(0)), '+', 1) }
                : {}),
            }))
            .where((eb: DynamicExpressionBuilder) =>
              eb.and([
                eb(`t0.${primaryKey}`, '=', id),
                ...endpointConditions(eb, resource, policy, 't0', call.ctx),
              ]),
            )
            .execute();
          // The row as written (a row-level policy's WITH CHECK): a change that would move it out of
          // this context's reach is undone, never half-done behind a 404.
          const found = await findRecord(id, call.ctx, trx);
          if (!found) throw new Rollback(outOfReach(planned.values));
          await capture.updated(trx, id, before);
          return answerOf(trx, found, call.ctx, id);
        },
        written,
        call.log,
        'update',
      );
    },

    async remove(call) {
      const id = idOf(call.id);
      requireIfMatch(call);
      await transaction(
        async (trx) => {
          const { before } = await lockedCurrent(trx, id, call);
          const where = (eb: DynamicExpressionBuilder) => eb(primaryKey, '=', id);
          if (softDelete && softDeleteStorage) {
            const now = storedDatetime(softDeleteStorage, dialect, new Date().toISOString());
            await trx
              .updateTable(resource.table)
              .set({ [softDelete]: now })
              .where(where)
              .execute();
            await capture.updated(trx, id, before);
          } else {
            await trx.deleteFrom(resource.table).where(where).execute();
            await capture.deleted(trx, id, before);
          }
        },
        [],
        call.log,
        'delete',
      );
    },

    async restore(call) {
      const id = idOf(call.id);
      const column = softDelete as string;
      return transaction(
        async (trx) => {
          const { before } = await lockedCurrent(trx, id, call, true);
          await trx
            .updateTable(resource.table)
            .set({ [column]: null })
            .where(primaryKey, '=', id)
            .execute();
          const found = await findRecord(id, call.ctx, trx);
          if (!found) throw new Rollback(notFound());
          await capture.updated(trx, id, before);
          return answerOf(trx, found, call.ctx, id);
        },
        [],
        call.log,
        'restore',
      );
    },
  };
}
