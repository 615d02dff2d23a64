import type { ValidateFunction } from 'ajv/dist/2020.js';
// The generator. Compared on npm: json-schema-faker (JSON Schema 2019-09/2020-12 with $ref, prefixItems,
// patternProperties, if/then, patterns as regular expressions; a seeded PRNG; no dependencies; kept up
// to date), json-schema-fast-check (fast-check arbitraries, but built on fast-check 1 and faker 4, for
// draft-07) and openapi-sampler (one example per schema, not random). fast-check itself has no JSON
// Schema reader. What
// json-schema-faker gets wrong now and then (a `null` where its $ref depth runs out, an object it could
// not fill under minProperties) is caught below: every generated value is checked with ajv, and
// dropped when the document refuses it.
import { generateSync } from 'json-schema-faker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTokens } from '../examples/demo/auth.js';
import demoConfig from '../examples/demo/config.js';
import { createSchema, dropSchema } from '../examples/demo/schema.js';
import { mulberry32, seedDemo } from '../examples/demo/seed.js';
import type { OpenApiDocument } from '../src/openapi/index.js';
import type { ServiceConfig } from '../src/resource/policy.js';
import type { Connection } from '../src/sql/connect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';
import { type Host, type InjectResponse, startHost } from './support/hosts.js';
import { DOCUMENT_ID, documentValidators, pointer } from './support/openapi-validators.js';

/**
 * The contract test: requests generated from the served OpenAPI document alone — every operation,
 * every parameter, body and enum — sent to the demo configuration as the anonymous caller and as the
 * demo's editor. A request the document takes must be answered as documented for a valid request
 * (2xx or 304; 404 for a record id that does not exist; 401/403 where the operation documents them for
 * the anonymous caller; 409 and 412 where the data or If-Match decide); one it refuses must be refused
 * with a 4xx the operation documents. Never a 5xx; every status documented for its operation, every
 * JSON body valid against the schema documented for that status.
 */

type Json = Record<string, unknown>;

/** Fixed: the same requests every run. */
const SEED = 20_240_601;
/** Generated requests per operation and caller: valid ones, and ones the document refuses. */
const VALID = 14;
const INVALID = 6;
/** Users seeded; posts and comments follow. Ids 1…USERS exist before the writes. */
const USERS = 20;

const callers = {
  anonymous: {} as Record<string, string>,
  editor: { authorization: `Bearer ${demoTokens.editor}` } as Record<string, string>,
};
type Caller = keyof typeof callers;

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  style?: string;
  explode?: boolean;
  schema: Json;
  description?: string;
}

interface Operation {
  path: string;
  /** As written in the document: get, post, patch, delete, x-query (the QUERY method). */
  method: string;
  parameters: Parameter[];
  /** The JSON body's schema, where the operation takes one. */
  body?: Json;
  /** Where the JSON body's schema is, for ajv. */
  bodyRef?: string;
  responses: Record<string, Json>;
  /** Where each parameter's schema is, for ajv. */
  parameterRefs: string[];
}

function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths))
    for (const [method, value] of Object.entries(item)) {
      // A live stream stays open until its client leaves, where an injected request waits for the end:
      // its statuses, headers and refusals are checked over real HTTP in test/live.test.ts.
      const ok = (value.responses as Record<string, Json> | undefined)?.['200'] as Json | undefined;
      if ((ok?.content as Record<string, Json> | undefined)?.['text/event-stream']) continue;
      const parameters = ((value.parameters ?? []) as Parameter[]).slice();
      const json = (value.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      const body = json?.['application/json']?.schema as Json | undefined;
      operations.push({
        path,
        method,
        parameters,
        ...(body
          ? {
              body,
              bodyRef: `${DOCUMENT_ID}#/${pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema')}`,
            }
          : {}),
        responses: value.responses as Record<string, Json>,
        parameterRefs: parameters.map(
          (_, index) =>
            `${DOCUMENT_ID}#/${pointer('paths', path, method, 'parameters', String(index), 'schema')}`,
        ),
      });
    }
  return operations;
}

/** A number from a text, for seeds: the same text, the same number. */
function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * One query parameter as a URL writes it, by its style: `form` (explode false: a list as one
 * comma-separated value) and `deepObject` (`filter[score][gte]=80`; a list inside as indexed members,
 * `filter[or][0][status]=active`, `filter[id][in][0]=1`).
 */
function serializeParameter(parameter: Parameter, value: unknown): string[] {
  const enc = encodeURIComponent;
  if (parameter.style === 'deepObject') {
    const pairs: string[] = [];
    const walk = (key: string, member: unknown) => {
      if (member === undefined) return;
      if (Array.isArray(member)) {
        for (const [index, item] of member.entries()) walk(`${key}[${index}]`, item);
      } else if (member !== null && typeof member === 'object')
        for (const [name, inner] of Object.entries(member)) walk(`${key}[${enc(name)}]`, inner);
      else pairs.push(`${key}=${enc(String(member))}`);
    };
    walk(enc(parameter.name), value);
    return pairs;
  }
  const text = Array.isArray(value) ? value.map(String).join(',') : String(value);
  return [`${enc(parameter.name)}=${enc(text)}`];
}

interface Request {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** What the request is, for a failure's message. */
  label: string;
  /** Sent with If-Match: a 412 is the record's answer, not a refusal of the request. */
  ifMatch: boolean;
}

/**
 * A document's validators and generated values, by the document's text. Generating values and checking
 * them is most of this test's work; the engines serve the same document, so the requests generated for
 * the first are sent again to the others (the same seeds would generate them again).
 */
interface Generation {
  validator: (ref: string) => ValidateFunction;
  /** By schema and seed: a generated value the document takes, or undefined when none came. */
  values: Map<string, unknown>;
}
const generations = new Map<string, Generation>();

describe.each(dialects)('the OpenAPI document as a contract, on the demo (%s)', (dialect) => {
  const database = 'openapi_contract';
  let connection: Connection | undefined;
  let host: Host | undefined;
  let document: OpenApiDocument;
  let generation: Generation;
  const validator = (ref: string) => generation.validator(ref);

  beforeAll(async () => {
    // A fresh database each run: the writes below change it.
    connection = await freshDatabase(dialect, database);
    await dropSchema(connection);
    await createSchema(connection);
    await seedDemo(connection, { users: USERS });
    host = await startHost(
      'standalone',
      { ...demoConfig, setup: undefined, adminDir: undefined } as ServiceConfig,
      connection,
    );
    const text = (await host.inject({ url: '/api/openapi.json' })).body;
    document = JSON.parse(text);
    const known = generations.get(text);
    if (known) generation = known;
    else {
      generation = { validator: documentValidators(document, { allErrors: false }), values: new Map() };
      generations.set(text, generation);
    }
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await connection?.db.destroy();
    await dropDatabase(dialect, database);
  });

  /** A value of the schema at `ref` (with the document's components), valid by ajv; undefined when none came. */
  function generate(ref: string, schema: Json, seed: number): unknown {
    const key = `${ref} ${seed}`;
    // A copy: a request's value is changed on its way (a reference kept, a parameter broken).
    if (generation.values.has(key)) return structuredClone(generation.values.get(key));
    const value = generateValid(ref, schema, seed);
    generation.values.set(key, structuredClone(value));
    return value;
  }

  function generateValid(ref: string, schema: Json, seed: number): unknown {
    const validate = validator(ref);
    for (let attempt = 0; attempt < 8; attempt++) {
      let value: unknown;
      try {
        value = generateSync(
          { ...schema, components: document.components } as never,
          {
            seed: seed + attempt * 7919,
            maxItems: 3,
            maxLength: 24,
            refDepthMax: 2,
            optionalsProbability: 0.5,
          } as never,
        );
      } catch {
        continue;
      }
      if (validate(value)) return value;
    }
    return undefined;
  }

  it('answers every request the document takes as documented, and refuses every one it refuses with a documented 4xx', async () => {
    const operations = operationsOf(document);
    const failures: string[] = [];
    const statuses = new Map<string, number>();
    let sent = 0;
    const started = Date.now();

    const send = async (request: Request) => {
      sent++;
      const response: InjectResponse = await (host as Host).inject({
        method: request.method,
        url: request.url,
        headers: request.headers,
        ...(request.payload !== undefined ? { payload: request.payload } : {}),
      });
      return response;
    };

    /** The documented response of a status, following its $ref; undefined when undocumented. */
    const documented = (operation: Operation, status: number): { ref: string; json?: string } | undefined => {
      const response = operation.responses[String(status)];
      if (!response) return undefined;
      if (typeof response.$ref === 'string') {
        const target = response.$ref;
        return {
          ref: target,
          json: `${DOCUMENT_ID}${target}/${pointer('content', 'application/json', 'schema')}`,
        };
      }
      const content = response.content as Record<string, Json> | undefined;
      return {
        ref: '',
        ...(content?.['application/json']
          ? {
              json: `${DOCUMENT_ID}#/${pointer('paths', operation.path, operation.method, 'responses', String(status), 'content', 'application/json', 'schema')}`,
            }
          : {}),
      };
    };

    const check = (
      operation: Operation,
      caller: Caller,
      request: Request,
      response: InjectResponse,
      valid: boolean,
    ) => {
      const status = response.statusCode;
      const key = `${valid ? 'valid' : 'invalid'} ${status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      const where = `${caller} ${request.label}\n    → ${status} ${response.body.slice(0, 300)}`;
      if (status >= 500) return void failures.push(`server error: ${where}`);
      const answer = documented(operation, status);
      if (!answer) return void failures.push(`undocumented status ${status}: ${where}`);
      if (valid) {
        const record = operation.path.includes('{id}');
        const write = ['post', 'patch', 'delete'].includes(operation.method);
        const fine =
          (status >= 200 && status < 300) ||
          status === 304 ||
          (status === 404 && record) ||
          ((status === 401 || status === 403) && caller === 'anonymous') ||
          (status === 409 && write) ||
          (status === 412 && request.ifMatch);
        if (!fine) return void failures.push(`valid request refused: ${where}`);
      } else if (status < 400) return void failures.push(`invalid request answered ${status}: ${where}`);
      const type = String(response.headers['content-type'] ?? '');
      if (answer.json && type.startsWith('application/json') && response.body !== '') {
        const validate = validator(answer.json);
        if (!validate(JSON.parse(response.body)))
          failures.push(
            `body not as documented (${(validate.errors ?? [])
              .slice(0, 3)
              .map((error) => `${error.instancePath} ${error.message}`)
              .join('; ')}): ${where}`,
          );
      }
    };

    for (const operation of operations) {
      for (const caller of Object.keys(callers) as Caller[]) {
        const opSeed = hash(`${operation.method} ${operation.path} ${caller}`) ^ SEED;
        for (let i = 0; i < VALID + INVALID; i++) {
          const valid = i < VALID;
          // The demo's own seeded PRNG, for the test's choices (which id, which mutation).
          const random = mulberry32(opSeed + i * 104729);
          const request = build(operation, caller, opSeed + i * 15485863, random, valid);
          if (!request) continue;
          const response = await send(request);
          check(operation, caller, request, response, valid);
        }
      }
    }

    const seconds = (Date.now() - started) / 1000;
    console.info(
      `${dialect}: ${sent} requests in ${seconds.toFixed(1)} s; ${[...statuses]
        .sort()
        .map(([key, n]) => `${key}: ${n}`)
        .join(', ')}`,
    );
    expect(failures.slice(0, 40)).toEqual([]);
    // The generated requests reach the data, not only the validation: most valid ones succeed.
    const succeeded = [...statuses]
      .filter(([key]) => /^valid 2/.test(key))
      .reduce((sum, [, n]) => sum + n, 0);
    const validSent = [...statuses]
      .filter(([key]) => key.startsWith('valid '))
      .reduce((sum, [, n]) => sum + n, 0);
    expect(succeeded).toBeGreaterThan(validSent / 2);
  }, 300_000);

  /**
   * One request of an operation: its parameters and body generated from their schemas, valid by
   * the document, or with one of them changed so that the document refuses it.
   */
  function build(
    operation: Operation,
    caller: Caller,
    seed: number,
    random: () => number,
    valid: boolean,
  ): Request | undefined {
    // An operation whose body is a query string (POST <list>/query, QUERY <list>,
    // POST <list>/aggregate/query) takes, as its schema's description says, the parameters of the
    // GET it names: they are generated from that operation and written as its query string.
    const of = queryOf(operation);
    const source = of ?? operation;
    const values = new Map<string, unknown>();
    source.parameters.forEach((parameter, index) => {
      if (parameter.in === 'header' && of) return;
      if (!parameter.required && random() < 0.5) return;
      const value = generate(source.parameterRefs[index] as string, parameter.schema, seed + index);
      if (value !== undefined) values.set(parameter.name, value);
    });
    let body: unknown;
    if (!of && operation.body && operation.bodyRef)
      body = generate(operation.bodyRef, operation.body, seed + 97);
    // A record that exists, more often than not (ids 1…USERS exist among users, posts and comments;
    // the demo has fewer departments and roles, and a 404 for an id no record has is an answer too).
    if (operation.path.includes('{id}') && random() < 0.6) values.set('id', 1 + Math.floor(random() * USERS));
    const dependent = valid ? keepDependencies(source, values) : [];
    if (valid && operation.body && body !== undefined)
      dependent.push(...keepReferences(operation.body, body, random));
    if (!valid) {
      const broken = breakOne(source, values, body, random);
      if (!broken) return undefined;
      body = broken.body;
    }
    const query: string[] = [];
    const headers: Record<string, string> = { ...callers[caller] };
    let path = operation.path;
    for (const parameter of source.parameters) {
      if (!values.has(parameter.name)) continue;
      const value = values.get(parameter.name);
      if (parameter.in === 'path')
        path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
      else if (parameter.in === 'header') headers[parameter.name.toLowerCase()] = String(value);
      else query.push(...serializeParameter(parameter, value));
    }
    const method = operation.method === 'x-query' ? 'QUERY' : operation.method.toUpperCase();
    let url = path;
    let payload: string | undefined;
    if (of) {
      // QUERY also takes the query string itself as a form body.
      if (operation.method === 'x-query' && random() < 0.5) {
        payload = query.join('&');
        headers['content-type'] = 'application/x-www-form-urlencoded';
      } else body = { query: query.join('&') };
      if (body !== undefined && !validator(operation.bodyRef as string)(body))
        throw new Error(`The query body's schema refuses the query of ${of.path}: ${JSON.stringify(body)}`);
    } else if (query.length > 0) url = `${path}?${query.join('&')}`;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    return {
      method,
      url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
      label: `${method} ${decodeURIComponent(url)}${payload !== undefined ? ` ${payload.slice(0, 300)}` : ''}${dependent.length > 0 ? ` (kept: ${dependent.join('; ')})` : ''}`,
      ifMatch: headers['if-match'] !== undefined,
    };
  }

  /**
   * A reference in a body names a record that exists, as its description says ("The id of an
   * existing <resource> record"): ids 1 to 3 exist in every table of the demo.
   */
  function keepReferences(schema: Json, body: unknown, random: () => number): string[] {
    const changed: string[] = [];
    const properties = (resolve(schema).properties ?? {}) as Record<string, Json>;
    for (const [name, property] of Object.entries(properties)) {
      const record = body as Json;
      if (
        typeof record[name] !== 'number' ||
        !String(property.description).includes('The id of an existing ')
      )
        continue;
      record[name] = 1 + Math.floor(random() * 3);
      changed.push(`${name}: an existing record`);
    }
    return changed;
  }

  /** The GET whose query string the body of this operation carries, if it is one of those. */
  function queryOf(operation: Operation): Operation | undefined {
    const path =
      operation.method === 'x-query'
        ? operation.path
        : operation.method === 'post' && operation.path.endsWith('/query')
          ? operation.path.slice(0, -'/query'.length)
          : undefined;
    if (path === undefined) return undefined;
    const get = operationsOf(document).find(
      (candidate) => candidate.path === path && candidate.method === 'get',
    );
    const described = (operation.body?.properties as Record<string, Json> | undefined)?.query?.description;
    expect(String(described)).toContain(`The query string of GET ${path},`);
    return get;
  }

  /**
   * The dependencies between parameters that OpenAPI cannot write and the document says in their
   * descriptions (each quoted below, and checked to be there): a valid request keeps them. What each
   * changed is said in a failure's message.
   */
  function keepDependencies(operation: Operation, values: Map<string, unknown>): string[] {
    const changed: string[] = [];
    const byName = new Map(operation.parameters.map((parameter) => [parameter.name, parameter]));
    const says = (name: string, text: string) => {
      expect(byName.get(name)?.description, `${operation.path} ${name}`).toContain(text);
    };
    const drop = (name: string, why: string) => {
      if (!values.has(name)) return;
      values.delete(name);
      changed.push(`${name} dropped: ${why}`);
    };
    // The cursor is one a page answered (next_cursor, prev_cursor), not any text.
    if (byName.has('cursor')) {
      says('cursor', 'next_cursor or prev_cursor of a page');
      drop('cursor', 'a cursor comes from a page');
    }
    if (values.get('pagination') === 'cursor') {
      says('page', 'not with pagination=cursor');
      drop('page', 'pagination=cursor');
    }
    if (values.get('all') === true) {
      says('all', 'Not combined with page, pagination, cursor, or per_page other than its default');
      for (const name of ['page', 'pagination', 'per_page']) drop(name, 'all=true');
    }
    if (values.has('format')) {
      says('format', 'Not combined with page, per_page, pagination or cursor');
      for (const name of ['page', 'per_page', 'pagination']) drop(name, 'an export');
      if (values.get('all') === false) {
        says('format', 'all, when sent beside it, must be true');
        drop('all', 'an export');
      }
    }
    // fields[<include>] and include_*[<include>] need their include in the same request.
    const include = new Set((values.get('include') as string[] | undefined) ?? []);
    for (const [name, value] of [...values]) {
      const match = /^(fields|include_filter|include_sort|include_limit)\[(.+)\]$/.exec(name);
      const path = match?.[2];
      if (
        !match ||
        !path ||
        (match[1] === 'fields' && !(byName.get(name)?.description ?? '').includes('include='))
      )
        continue;
      says(name, `Only with include=${path}`);
      if (value !== undefined && ![...include].some((included) => `${included}.`.startsWith(`${path}.`))) {
        include.add(path);
        changed.push(`include=${path} added: ${name}`);
      }
    }
    if (include.size > 0) values.set('include', [...include]);
    // Aggregates: at most one date bucket; from and to exactly with one; sort and having name what
    // the request asks for.
    if (byName.has('from')) {
      const groups = (values.get('group_by') as string[] | undefined) ?? [];
      const buckets = groups.filter((name) => /:(day|week|month|quarter|year|hour)$/.test(name));
      says('group_by', 'at most one date bucket');
      if (buckets.length > 1) {
        values.set(
          'group_by',
          groups.filter((name) => !buckets.slice(1).includes(name)),
        );
        changed.push('group_by: one date bucket kept');
      }
      says('from', 'Only with a date bucket in group_by');
      if (buckets.length === 0) {
        drop('from', 'no date bucket');
        drop('to', 'no date bucket');
      } else {
        // Both bounds, a few weeks apart: under maxBuckets of days, as its description says.
        says('from', 'at most');
        const start = Date.parse(String(values.get('from') ?? '2024-01-01'));
        const from = Number.isNaN(start) ? Date.UTC(2024, 0, 1) : start;
        values.set('from', new Date(from).toISOString().slice(0, 10));
        values.set('to', new Date(from + 40 * 86_400_000).toISOString().slice(0, 10));
        changed.push('from and to: 40 days');
      }
      const metrics = (values.get('metrics') as string[] | undefined) ?? ['count'];
      const requested = new Set([...metrics, ...((values.get('group_by') as string[] | undefined) ?? [])]);
      says('sort', 'Only names this request asks for');
      const sort = values.get('sort') as string[] | undefined;
      if (sort) {
        const kept = sort.filter((term) => requested.has(term.replace(/^-/, '')));
        if (kept.length !== sort.length) changed.push('sort: names not asked for dropped');
        if (kept.length > 0) values.set('sort', kept);
        else values.delete('sort');
      }
      says('having', 'Only metrics this request asks for');
      const having = values.get('having') as Json | undefined;
      if (having) {
        const kept = Object.fromEntries(Object.entries(having).filter(([name]) => metrics.includes(name)));
        if (Object.keys(kept).length !== Object.keys(having).length)
          changed.push('having: metrics not asked for dropped');
        values.set('having', kept);
      }
    }
    return changed;
  }

  /**
   * Changes one parameter or the body so that its schema refuses it: a name or value no enum has, a
   * number past its bounds, text where a number or a flag is, a member a closed object does not name,
   * a required member left out. Checked with ajv: only a change the document refuses is kept.
   */
  function breakOne(
    operation: Operation,
    values: Map<string, unknown>,
    body: unknown,
    random: () => number,
  ): { body: unknown } | undefined {
    const candidates: (() => boolean)[] = [];
    operation.parameters.forEach((parameter, index) => {
      if (parameter.in !== 'query') return;
      const validate = validator(operation.parameterRefs[index] as string);
      for (const mutant of mutants(parameter.schema))
        candidates.push(() => {
          if (validate(mutant)) return false;
          values.set(parameter.name, mutant);
          return true;
        });
    });
    let broken = body;
    if (operation.body && operation.bodyRef && body !== undefined) {
      const validate = validator(operation.bodyRef);
      for (const mutant of bodyMutants(operation.body, body))
        candidates.push(() => {
          if (validate(mutant)) return false;
          broken = mutant;
          return true;
        });
    }
    while (candidates.length > 0) {
      const [candidate] = candidates.splice(Math.floor(random() * candidates.length), 1);
      if (candidate?.()) return { body: broken };
    }
    return undefined;
  }

  /** Values a parameter's schema may refuse (ajv decides which it does). */
  function mutants(schema: Json): unknown[] {
    const resolved = resolve(schema);
    const out: unknown[] = [];
    if (resolved.type === 'array') out.push(['zz-not-allowed']);
    if (Array.isArray(resolved.enum)) out.push('zz-not-allowed');
    if (resolved.type === 'integer' || resolved.type === 'number') {
      out.push('not-a-number');
      if (typeof resolved.maximum === 'number') out.push(resolved.maximum + 1);
      if (typeof resolved.minimum === 'number') out.push(resolved.minimum - 1);
    }
    if (resolved.type === 'boolean') out.push('maybe');
    if (resolved.type === 'string' && typeof resolved.maxLength === 'number')
      out.push('x'.repeat(resolved.maxLength + 1));
    if (resolved.type === 'object' && resolved.additionalProperties === false) out.push({ zz_unknown: 'x' });
    return out;
  }

  /** Bodies a body's schema may refuse: a member it does not name, one left out, one of another type. */
  function bodyMutants(schema: Json, body: unknown): unknown[] {
    const resolved = resolve(schema);
    if (typeof body !== 'object' || body === null) return [];
    const out: unknown[] = [{ ...body, zz_unknown: 'x' }];
    for (const name of (resolved.required ?? []) as string[]) {
      const { [name]: _, ...rest } = body as Json;
      out.push(rest);
    }
    for (const name of Object.keys((resolved.properties ?? {}) as Json)) {
      out.push({ ...body, [name]: { nested: true } });
      out.push({ ...body, [name]: 'x'.repeat(70_000) });
    }
    return out;
  }

  function resolve(schema: Json): Json {
    if (typeof schema.$ref === 'string')
      return resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] as Json);
    return schema;
  }
});
