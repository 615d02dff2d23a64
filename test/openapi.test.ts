import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import demoConfig from '../examples/demo/config.js';
import { createSchema, dropSchema } from '../examples/demo/schema.js';
import { createService } from '../src/core/service.js';
import type { OpenApiDocument } from '../src/openapi/index.js';
import type { ContextRequest, ServiceConfig } from '../src/resource/policy.js';
import { bearerContext } from '../src/server/bearer.js';
import type { Connection } from '../src/sql/connect.js';
import { openapiEndpoints } from './fixtures/openapi-endpoints.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';
import { type Host, hostNames, type InjectOptions, type InjectResponse, startHost } from './support/hosts.js';
import { DOCUMENT_ID, documentValidators, pointer } from './support/openapi-validators.js';
import {
  contextFromHeaders,
  type RecordsContext,
  recordsResources,
  useRecordsService,
} from './support/records.js';

type Json = Record<string, unknown>;

/**
 * Checks response bodies against the document's own schemas: the response of a path, method and
 * status (following a `$ref` to components.responses), compiled by ajv in JSON Schema 2020-12.
 */
function responseChecker(document: OpenApiDocument): Checker {
  // One per document: the hosts serve the same one, and compiling its schemas is most of the work.
  const text = JSON.stringify(document);
  let checker = checkers.get(text);
  if (!checker) {
    checker = newChecker(document);
    checkers.set(text, checker);
  }
  return checker;
}
type Checker = ReturnType<typeof newChecker>;
const checkers = new Map<string, Checker>();

function newChecker(document: OpenApiDocument) {
  const validatorOf = documentValidators(document, { allErrors: true });
  const schemaAt = (path: string, method: string, status: number): string => {
    const operation = document.paths[path]?.[method] as Json | undefined;
    if (!operation) throw new Error(`The document has no ${method.toUpperCase()} ${path}.`);
    const response = (operation.responses as Record<string, Json>)[String(status)];
    if (!response) throw new Error(`${method.toUpperCase()} ${path} documents no ${status}.`);
    if (typeof response.$ref === 'string')
      return `${DOCUMENT_ID}${response.$ref}/${pointer('content', 'application/json', 'schema')}`;
    return `${DOCUMENT_ID}#/${pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema')}`;
  };
  return {
    /** The validation errors of `body` (empty: valid). */
    errors(path: string, method: string, status: number, body: unknown): string[] {
      const validate = validatorOf(schemaAt(path, method, status));
      if (validate(body)) return [];
      return (validate.errors ?? []).map(
        (error) => `${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`,
      );
    },
    /** A value against the document's `components.schemas.<name>` (a request body, a filter). */
    schemaErrors(name: string, value: unknown): string[] {
      const validate = validatorOf(`${DOCUMENT_ID}#/${pointer('components', 'schemas', name)}`);
      return validate(value)
        ? []
        : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
    },
    /** A response's body against the document's `components.responses.<name>`. */
    componentErrors(name: string, body: unknown): string[] {
      const validate = validatorOf(
        `${DOCUMENT_ID}#/${pointer('components', 'responses', name, 'content', 'application/json', 'schema')}`,
      );
      return validate(body)
        ? []
        : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
    },
  };
}

/**
 * The records suites' roles (`x-test-role`), and an Authorization header checked as the CLI's bearer
 * hook checks it: a malformed or unsupported one is a 401, whatever the operation.
 */
const bearer = bearerContext({ secret: 'openapi-test-secret-not-used-to-sign-anything' });
async function testContext(request: ContextRequest): Promise<RecordsContext | null> {
  if (request.headers.authorization === undefined) return contextFromHeaders(request);
  return ((await bearer(request)) as RecordsContext | undefined) ?? null;
}

/** Methods a path may not enable: the others of HTTP, and ones Fastify does not route by default. */
const otherMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'OPTIONS', 'QUERY'];

/** A documented path with its parameters filled in (a record that exists: the 405 must not depend on it). */
const concrete = (path: string) => path.replace('{id}', '1');

/**
 * Every method the document does not give a path is answered 405, with `Allow` naming the methods it
 * does give (and HEAD with GET), in the envelope of `components.responses.MethodNotAllowed`.
 */
async function expectMethodsRefused(
  host: Pick<Host, 'inject'>,
  document: OpenApiDocument,
  check: ReturnType<typeof responseChecker>,
  methods: readonly string[],
): Promise<void> {
  for (const [path, item] of Object.entries(document.paths)) {
    // QUERY is an extension in OpenAPI 3.1 (`x-query`), a method of the path all the same.
    const documented = Object.keys(item).map((method) =>
      method === 'x-query' ? 'QUERY' : method.toUpperCase(),
    );
    const allow = documented.includes('GET') ? [...documented, 'HEAD'] : documented;
    for (const method of methods.filter((candidate) => !documented.includes(candidate))) {
      const label = `${method} ${path}`;
      // A bad Authorization header too: which methods a path has does not depend on who asks.
      const response: InjectResponse = await host.inject({
        method,
        url: concrete(path),
        headers: { authorization: 'Basic x' },
      });
      expect(response.statusCode, `${label}: ${response.body}`).toBe(405);
      expect(String(response.headers.allow).split(', ').sort(), label).toEqual([...allow].sort());
      expect(check.componentErrors('MethodNotAllowed', response.json()), label).toEqual([]);
    }
  }
}

const schemaOf = (document: OpenApiDocument, name: string) => document.components.schemas[name] as Json;
const props = (schema: Json) => schema.properties as Record<string, Json>;
/** The `index`th member of a schema's `anyOf`. */
const alternative = (schema: Json | undefined, index: number) =>
  ((schema?.anyOf ?? []) as Json[])[index] as Json;

/**
 * The records suites' resources, with users.department_id declared a 64-bit key (`big`): its bounds
 * are the document's and validation's. (The demo's column is an int; no value past 32 bits reaches it.)
 */
const openapiResources = recordsResources.map((resource) =>
  resource.name === 'users'
    ? {
        ...resource,
        columns: { ...resource.columns, department_id: { type: 'integer' as const, big: true } },
      }
    : resource,
);

describe.each(dialects)('OpenAPI document and real responses (%s)', (dialect) => {
  const service = useRecordsService(dialect, 'openapi', {
    resources: openapiResources,
    endpoints: openapiEndpoints,
    context: testContext,
  });
  let document: OpenApiDocument;
  let check: Checker;
  const operation = (path: string, method: string) => document.paths[path]?.[method] as Json;

  beforeAll(async () => {
    const response = await service.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(response.statusCode).toBe(200);
    document = response.json();
    check = responseChecker(document);
  });

  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    const validated = await SwaggerParser.validate(structuredClone(document) as never);
    expect((validated as Json).openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        '/api/users',
        '/api/users/query',
        '/api/users/{id}',
        '/api/users/{id}/restore',
        '/api/users/aggregate',
        '/api/users/aggregate/query',
        '/api/posts',
        '/api/posts/query',
        '/api/posts/{id}',
        '/api/comment-labels',
        '/api/comment-labels/query',
        '/api/comment-labels/{id}',
        ...['upto', 'estimated', 'uncounted'].flatMap((name) => [
          `/api/comments-${name}`,
          `/api/comments-${name}/query`,
          `/api/comments-${name}/{id}`,
        ]),
        '/api/v1/users/schema',
        '/api/v1/posts/schema',
        '/api/v1/schema',
        '/api/openapi.json',
      ].sort(),
    );
    expect(Object.keys(document.paths['/api/users/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(document.paths['/api/posts/{id}'] ?? {}).sort()).toEqual(['get', 'patch']);
    // A context hook is configured: an optional bearer token.
    expect(document.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ scheme: 'bearer' }),
    });
    expect(document.security).toEqual([{ bearerAuth: [] }, {}]);
  });

  it('documents records from the columns: types, formats, nullability, counts, includes; hidden columns absent', () => {
    const record = schemaOf(document, 'UsersRecord');
    const p = props(record);
    expect(p.password_hash).toBeUndefined();
    expect(p.id).toEqual({ type: 'integer' });
    expect(p.created_at?.format).toBe('date-time');
    expect(p.birthday).toEqual({ type: ['string', 'null'], format: 'date' });
    expect(p.deleted_at?.type).toEqual(['string', 'null']);
    expect(p.posts_count?.type).toBe('integer');
    // The key always; every other column unless a sparse fieldset leaves it out.
    expect(record.required).toEqual(['id']);
    expect(record['x-answered']).toContain('email');
    expect(record['x-answered']).not.toContain('posts_count');
    expect(record.additionalProperties).toBe(false);
    // To-many: an array of the related records, nested includes inside; a relation the form sets (a
    // references input) is also the list of its keys, as a write answers it.
    const [roles, roleKeys] = (p.roles as Json).anyOf as Json[];
    expect(roles?.type).toBe('array');
    expect(props(roles?.items as Json).permissions?.type).toBe('array');
    expect(roleKeys).toMatchObject({ type: 'array', items: { type: 'integer' } });
    expect(props(schemaOf(document, 'UsersUpdate')).roles).toMatchObject({
      type: 'array',
      uniqueItems: true,
      maxItems: 10,
    });
    // To-one: the record or null.
    expect(alternative(p.department, 1)).toEqual({ type: 'null' });
    // The transformer's record is the one the endpoint declares.
    expect(props(schemaOf(document, 'CommentLabelsRecord')).label).toEqual({ type: 'string' });
  });

  it('documents filters with their operators and value shapes, and include/count/sort as enums', () => {
    const filter = props(schemaOf(document, 'UsersFilter'));
    expect(Object.keys(filter).sort()).toEqual(
      [
        'active',
        'and',
        'birthday',
        'created_at',
        'department.name',
        'name',
        'or',
        'score',
        'status',
        'trashed',
      ].sort(),
    );
    const scoreOps = props(alternative(filter.score, 1));
    expect(Object.keys(scoreOps)).toContain('gte');
    expect(Object.keys(scoreOps)).not.toContain('contains');
    expect(scoreOps.between).toMatchObject({
      type: 'array',
      minItems: 2,
      prefixItems: [{ type: 'integer' }, { type: 'integer' }],
    });
    expect(scoreOps.in).toMatchObject({ type: 'array', items: { type: 'integer' }, maxItems: 100 });
    expect(scoreOps.is_null).toMatchObject({ type: 'boolean' });
    const nameOps = props(alternative(filter.name, 1));
    expect(Object.keys(nameOps)).toContain('contains');
    expect(Object.keys(props(alternative(filter.birthday, 1)))).toContain('date_between');
    // The badge's colours are the values status takes.
    expect(alternative(filter.status, 0)).toEqual({
      type: 'string',
      enum: ['active', 'inactive', 'banned'],
    });
    expect(filter.active).toEqual({ type: 'boolean' });
    const patterns = schemaOf(document, 'UsersFilter').patternProperties as Record<string, Json>;
    expect(Object.keys(patterns)).toHaveLength(1);
    expect(new RegExp(Object.keys(patterns)[0] as string).test('settings.theme')).toBe(true);
    expect(new RegExp(Object.keys(patterns)[0] as string).test('settingsXtheme')).toBe(false);

    const list = operation('/api/users', 'get');
    const parameters = list.parameters as Json[];
    const param = (name: string) => parameters.find((candidate) => candidate.name === name) as Json;
    expect(param('filter')).toMatchObject({ style: 'deepObject', explode: true });
    expect((param('include').schema as Json).items).toEqual({
      enum: ['department', 'roles', 'roles.permissions', 'posts', 'posts.comments'],
    });
    expect((param('count').schema as Json).items).toEqual({ enum: ['posts', 'roles'] });
    expect((param('sort').schema as Json).items).toEqual({
      enum: ['name', '-name', 'score', '-score', 'created_at', '-created_at'],
    });
    expect(param('all')).toBeDefined();
    expect(param('search')).toBeDefined();
    // A sparse fieldset per owner, named as the URL writes it: a list of that owner's allowed fields.
    expect(param('fields[users]')).toMatchObject({ in: 'query', style: 'form', explode: false });
    expect(param('fields[users]').schema).toMatchObject({ type: 'array', minItems: 1 });
    expect(((param('fields[users]').schema as Json).items as Json).enum).toContain('email');
    expect(((param('fields[users]').schema as Json).items as Json).enum).not.toContain('password_hash');
    expect(param('fields[department]').description).toContain(
      'Only with include=department (or an include below it) in the same request, else a 422 keyed fields.department.',
    );
    expect(param('fields')).toBeUndefined();
    // A datetime filter's value: a date or an RFC 3339 date-time, with the years every engine stores.
    expect(alternative(filter.created_at, 0)).toMatchObject({
      anyOf: [{ format: 'date' }, { format: 'date-time' }],
    });
    // The query in a body is the GET's query string: its names, then whatever GET takes.
    const body = ((operation('/api/users/query', 'post').requestBody as Json).content as Json)[
      'application/json'
    ] as Json;
    const queryString = props(body.schema as Json).query as Json;
    expect(queryString.description).toContain('The query string of GET /api/users,');
    const pattern = new RegExp(String(queryString.pattern));
    for (const accepted of [
      '',
      'filter[score][gte]=80&sort=-score',
      '?fields[users]=id,name&include=roles&',
      'filter%5Bname%5D=x',
    ])
      expect(pattern.test(accepted), accepted).toBe(true);
    for (const refused of ['nope=1', 'filter[name]=x&foo=1', 'filterx=1'])
      expect(pattern.test(refused), refused).toBe(false);
    // posts has no search and no all=true: not documented.
    const postParams = operation('/api/posts', 'get').parameters as Json[];
    expect(postParams.map((candidate) => candidate.name)).not.toContain('search');
    expect(postParams.map((candidate) => candidate.name)).not.toContain('all');
  });

  it('documents request bodies from the form: required, enums, lengths, formats', () => {
    const create = schemaOf(document, 'UsersCreate');
    // score is required but conditional (visibleWhen): not required by the schema.
    expect(create.required).toEqual(['name', 'email', 'status']);
    const p = props(create);
    expect(p.name).toMatchObject({ type: 'string', maxLength: 120 });
    // Lengths validation enforces without a declaration are documented too: 255, 8+ for a password;
    // a required input sent empty is refused as missing: at least 1.
    expect(p.email).toMatchObject({ type: 'string', format: 'email', maxLength: 255, minLength: 1 });
    expect(p.status).toEqual({ enum: ['active', 'inactive', 'banned'] });
    // An optional password sent empty is left as it is.
    expect(alternative(p.password, 0)).toMatchObject({ type: 'string', minLength: 10, maxLength: 255 });
    expect(alternative(p.password, 1)).toEqual({ enum: ['', null] });
    expect(props(schemaOf(document, 'PostsUpdate')).title).toMatchObject({ type: 'string', maxLength: 255 });
    expect(p.score).toMatchObject({ type: 'integer', minimum: -2147483648, maximum: 2147483647 });
    // NOT NULL columns with a default: optional, but never empty.
    // numeric(12, 2): exactly as text, or a whole number in its range (see the rule's own test).
    expect(alternative(p.balance, 0)).toEqual({
      type: 'string',
      pattern: '^-?(0|[1-9][0-9]{0,9})(\\.[0-9]{1,2})?$',
    });
    expect(alternative(p.balance, 1)).toEqual({ type: 'integer', minimum: -9999999999, maximum: 9999999999 });
    expect(p.is_admin).toEqual({ type: 'boolean' });
    // A nullable column: empty ("" or null) clears it.
    expect(alternative(p.birthday, 1)).toEqual({ enum: ['', null] });
    expect(create.additionalProperties).toBe(false);
    expect(schemaOf(document, 'UsersUpdate').required).toBeUndefined();
    const patchPosts = document.paths['/api/posts/{id}']?.patch as Json;
    expect((patchPosts.parameters as Json[]).find((p) => p.name === 'If-Match')?.required).toBe(true);
    expect(Object.keys(patchPosts.responses as Json)).toEqual(
      expect.arrayContaining(['200', '401', '403', '404', '409', '412', '415', '422', '428', '503']),
    );
  });

  /** Sends a request, checks its status, and its body against the document's schema for it. */
  const call = async (
    request: InjectOptions & { role?: string },
    path: string,
    status: number,
  ): Promise<Json & { data?: Json[] }> => {
    const method = (request.method ?? 'GET').toLowerCase();
    const headers = { ...request.headers, ...(request.role ? { 'x-test-role': request.role } : {}) };
    const response = await service.inject({ ...request, headers });
    expect(response.statusCode, `${method} ${request.url}: ${response.body}`).toBe(status);
    const body = response.statusCode === 204 ? undefined : response.json();
    if (body !== undefined)
      expect(check.errors(path, method, status, body), `${method} ${request.url}`).toEqual([]);
    return body;
  };

  it('refuses a body the document refuses, and takes one it takes (create and PATCH)', async () => {
    let n = 0;
    const person = () => ({
      name: 'Contract Person',
      email: `contract-${dialect}-${++n}@example.com`,
      status: 'active',
      score: 1,
    });
    const creates: [string, Json][] = [
      ['every required input', person()],
      ['score omitted while shown (visibleWhen)', { ...person(), score: undefined }],
      ['score omitted while hidden (banned)', { ...person(), status: 'banned', score: undefined }],
      ['a hidden input of another shape', { ...person(), status: 'banned', balance: { x: 1 } }],
      ['a required text sent empty', { ...person(), name: '' }],
      ['null for a NOT NULL column with a default', { ...person(), balance: null }],
      ['null for a NOT NULL boolean', { ...person(), is_admin: null }],
      ['an email without a dot in its domain', { ...person(), email: '0@com' }],
      ['a date before the year 1000', { ...person(), birthday: '0001-01-01' }],
      ['a date of the year 1000', { ...person(), birthday: '1000-01-01' }],
      ['a number past the column', { ...person(), balance: 1e300 }],
      ['a decimal in range, as text', { ...person(), balance: '10.50' }],
      ['a whole number for a decimal', { ...person(), balance: 10 }],
      ['a decimal with three places, as text', { ...person(), balance: '10.505' }],
      ['a decimal past the column, as text', { ...person(), balance: '10000000000.00' }],
      ['a decimal as text with a leading zero', { ...person(), balance: '010.5' }],
      ['an integer past 32 bits', { ...person(), score: 2147483648 }],
      ['the largest 32-bit integer', { ...person(), score: 2147483647 }],
      ['a 64-bit key past 2^53 - 1', { ...person(), department_id: 2 ** 53 }],
      ['empty for a nullable date', { ...person(), birthday: '' }],
      ['null for a nullable date', { ...person(), birthday: null }],
    ];
    const patches: [string, Json][] = [
      ['a required input sent null', { score: null }],
      ['null for a NOT NULL column with a default', { balance: null }],
      ['an email without a dot in its domain', { email: '0@com' }],
      ['a date before the year 1000', { birthday: '0001-01-01' }],
      ['a number past the column', { balance: -1e300 }],
      ['an integer past 32 bits', { score: -2147483649 }],
      ['a valid change', { balance: '12.5', birthday: '1999-12-31' }],
    ];
    // Every disagreement at once: the case, what the document says, what the service answered.
    const disagreements: string[] = [];
    const compare = async (
      label: string,
      schema: string,
      request: InjectOptions,
      path: string,
      ok: number,
    ) => {
      const body = JSON.parse(JSON.stringify(request.payload)) as Json;
      const valid = check.schemaErrors(schema, body).length === 0;
      const response = await service.inject({ ...request, payload: body });
      const status = response.statusCode;
      if ((status === ok) !== valid || (status !== ok && status !== 422))
        disagreements.push(
          `${label}: the document says ${valid ? 'valid' : 'invalid'}, the service ${status}`,
        );
      else if (status === 422)
        expect(check.errors(path, request.method?.toLowerCase() ?? 'get', 422, response.json())).toEqual([]);
    };
    const cases = [
      ...creates.map(([label, payload]) => ({ label: `create, ${label}`, method: 'POST', payload })),
      ...patches.map(([label, payload]) => ({ label: `PATCH, ${label}`, method: 'PATCH', payload })),
    ];
    for (const { label, method, payload } of cases)
      await compare(
        label,
        method === 'POST' ? 'UsersCreate' : 'UsersUpdate',
        { method, url: method === 'POST' ? '/api/users' : '/api/users/2', payload },
        method === 'POST' ? '/api/users' : '/api/users/{id}',
        method === 'POST' ? 201 : 200,
      );
    expect(disagreements).toEqual([]);
  });

  it('says each rule of an input the same way in the document and in the message', async () => {
    const p = props(schemaOf(document, 'UsersCreate'));
    const refusal = async (values: Json) => {
      const body = await call(
        {
          method: 'POST',
          url: '/api/users',
          payload: { name: 'Rule', email: 'rule@example.com', status: 'active', score: 1, ...values },
        },
        '/api/users',
        422,
      );
      return String(Object.values(body.errors as Record<string, string[]>)[0]?.[0]);
    };
    expect(await refusal({ score: 2147483648 })).toBe(
      `The score field must be a whole number between ${String(p.score?.minimum)} and ${String(p.score?.maximum)}.`,
    );
    // A 64-bit key: the integers a JSON number holds exactly.
    expect(alternative(p.department_id, 0)).toMatchObject({ minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1 });
    expect(await refusal({ department_id: 2 ** 53 })).toBe(
      `The department field must be a whole number between -${2 ** 53 - 1} and ${2 ** 53 - 1}.`,
    );
    // A decimal with a scale: the document's two exact forms (text, a whole number), and the JSON
    // number of at most 2 places it names in words, since validators cannot count a binary fraction's
    // decimals (0.07 / 0.01 is not a whole number to them).
    expect(p.balance?.description).toBe(
      'A decimal from -9999999999.99 to 9999999999.99 with at most 2 decimal places: exactly as text ("12.50"), or a whole number. A JSON number with at most 2 decimal places (12.5) is taken too; it is not in the schema because validators cannot count its decimals exactly.',
    );
    expect(await refusal({ balance: 1e300 })).toBe(
      'The balance field must be between -9999999999.99 and 9999999999.99.',
    );
    expect(await refusal({ balance: 1.005 })).toBe('The balance field must have at most 2 decimal places.');
    expect(await refusal({ balance: 1e-7 })).toBe('The balance field must have at most 2 decimal places.');
    expect(await refusal({ balance: '1.005' })).toBe(
      'The balance field must be a decimal between -9999999999.99 and 9999999999.99 with at most 2 decimal places, as a number or as text ("12.50").',
    );
    for (const balance of [0.07, 0.57, 12.5]) {
      expect(
        check.schemaErrors('UsersCreate', {
          name: 'n',
          email: 'n@example.com',
          status: 'active',
          score: 1,
          balance,
        }),
      ).not.toEqual([]);
      await call(
        {
          method: 'POST',
          url: '/api/users',
          payload: {
            name: 'Rule',
            email: `rule-${balance}@example.com`,
            status: 'active',
            score: 1,
            balance,
          },
        },
        '/api/users',
        201,
      );
    }
    expect(await refusal({ balance: null })).toBe('The balance field cannot be empty.');
    expect(p.birthday?.description).toContain('years 1000 to 9999');
    expect(await refusal({ birthday: '0999-12-31' })).toBe(
      'The birthday field must be a date in the form YYYY-MM-DD (years 1000 to 9999).',
    );
    expect(p.email?.description).toBe('With a dot in its domain.');
    // format: email alone takes 0@com (RFC 5321, and ajv-formats' fast mode): the pattern says no.
    expect(new RegExp(String(p.email?.pattern)).test('0@com')).toBe(false);
    expect(await refusal({ email: '0@com' })).toContain('with a dot in its domain');
    expect(await refusal({ email: 'name@localhost' })).toBe(
      'The email field must be a valid email address, with a dot in its domain (name@example.com).',
    );
    // The conditional requirement, as JSON Schema says it and as the message says it.
    expect(schemaOf(document, 'UsersCreate').allOf).toEqual([
      {
        if: { not: { properties: { status: { const: 'banned' } }, required: ['status'] } },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's then, never awaited.
        then: { required: ['score'] },
      },
    ]);
    expect(await refusal({ score: undefined })).toBe('The score field is required.');
  });

  it('bounds integer filters by the column, in the document and in the message', async () => {
    const filter = props(schemaOf(document, 'UsersFilter'));
    expect(alternative(filter.score, 0)).toEqual({
      type: 'integer',
      minimum: -2147483648,
      maximum: 2147483647,
    });
    expect(check.schemaErrors('UsersFilter', { score: 2147483647 })).toEqual([]);
    expect(check.schemaErrors('UsersFilter', { score: 2147483648 }).length).toBeGreaterThan(0);
    expect(check.schemaErrors('UsersFilter', { score: { gte: -2147483649 } }).length).toBeGreaterThan(0);
    await call({ url: '/api/users?filter[score]=2147483647' }, '/api/users', 200);
    const refused = await call({ url: '/api/users?filter[score][gte]=-2147483649' }, '/api/users', 422);
    expect((refused.errors as Record<string, string[]>)['filter.score']?.[0]).toContain(
      'a whole number between -2147483648 and 2147483647',
    );
  });

  it('answers lists in every pagination mode as documented', async () => {
    const page = await call(
      {
        url: '/api/users?include=department,roles.permissions,posts.comments&count=posts,roles&sort=-score&filter[score][gte]=10',
      },
      '/api/users',
      200,
    );
    expect(page.total).toBeGreaterThan(0);
    expect(page.data?.some((user) => Array.isArray(user.roles) && user.roles.length > 0)).toBe(true);
    await call({ url: '/api/users?pagination=simple&per_page=3&include=department' }, '/api/users', 200);
    const first = await call({ url: '/api/users?pagination=cursor&per_page=2&sort=name' }, '/api/users', 200);
    expect(typeof first.next_cursor).toBe('string');
    await call(
      { url: `/api/users?pagination=cursor&per_page=2&sort=name&cursor=${String(first.next_cursor)}` },
      '/api/users',
      200,
    );
    const all = await call(
      { url: '/api/users?all=true&filter[status]=active&count=posts' },
      '/api/users',
      200,
    );
    expect(Array.isArray(all)).toBe(true);
    await call({ url: '/api/users?search=a&filter[settings.theme]=dark' }, '/api/users', 200);
    await call(
      { url: '/api/posts?filter[meta.featured]=true&include=author&count=comments' },
      '/api/posts',
      200,
    );
    await call({ url: '/api/comment-labels?filter[approved]=true' }, '/api/comment-labels', 200);
    // Each count strategy answers its own documented envelope: the exact endpoint never marks an
    // estimate, the bounded and estimated ones always say which it is, the uncounted one has no total.
    for (const [path, query] of [
      ['/api/comments-upto', '?per_page=2'],
      ['/api/comments-upto', '?filter[approved]=true&per_page=50'],
      ['/api/comments-estimated', '?per_page=2'],
      ['/api/comments-uncounted', '?per_page=2&page=2'],
    ] as const) {
      const body = await call({ url: `${path}${query}` }, path, 200);
      if (path === '/api/comments-uncounted') expect(body.total).toBeNull();
      else expect(typeof body.total_is_estimate).toBe('boolean');
      const { total_is_estimate: _, ...counted } = body;
      const exact = { ...counted, total: 1, last_page: 1, last_page_url: 'x' };
      // The same page as an exact endpoint would write it is not what this endpoint documents.
      expect(check.errors(path, 'get', 200, exact).length, path).toBeGreaterThan(0);
    }
    const exact = await call({ url: '/api/posts?per_page=2' }, '/api/posts', 200);
    expect(
      check.errors('/api/posts', 'get', 200, { ...exact, total_is_estimate: false }).length,
    ).toBeGreaterThan(0);
    await call({ url: '/api/users?filter[password_hash]=x&sort=email' }, '/api/users', 422);
  });

  it('documents constrained includes: their three parameters, the include’s filter schema and <relation>_total', async () => {
    const list = document.paths['/api/users']?.get as Json;
    const params = Object.fromEntries(
      (list.parameters as Json[]).map((parameter) => [parameter.name as string, parameter]),
    );
    // One parameter per constrainable include, named as the URL writes it.
    expect(Object.keys(params).filter((name) => name.startsWith('include_'))).toEqual([
      'include_filter[posts]',
      'include_sort[posts]',
      'include_limit[posts]',
    ]);
    expect(params['include_filter[posts]']).toMatchObject({
      in: 'query',
      style: 'deepObject',
      schema: { $ref: '#/components/schemas/UsersPostsIncludeFilter' },
    });
    expect(params['include_sort[posts]']).toMatchObject({ style: 'form', explode: false });
    expect(((params['include_sort[posts]'] as Json).schema as Json).items).toEqual({
      enum: ['created_at', '-created_at', 'score', '-score'],
    });
    expect((params['include_limit[posts]'] as Json).schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 10,
    });
    expect((params['include_limit[posts]'] as Json).description).toContain(
      'Only with include=posts in the same request, else a 422 keyed include_limit.posts.',
    );
    expect(props(schemaOf(document, 'UsersPostsIncludeFilter'))).toHaveProperty('score');
    expect(check.schemaErrors('UsersPostsIncludeFilter', { status: 'draft', score: { gte: 2 } })).toEqual([]);
    expect(check.schemaErrors('UsersPostsIncludeFilter', { title: 'x' })).not.toEqual([]);
    expect(props(schemaOf(document, 'UsersRecord'))).toHaveProperty('posts_total');
    const page = await call(
      {
        url: '/api/users?include=posts&include_filter[posts][score][gte]=1&include_sort[posts]=-score&include_limit[posts]=1',
      },
      '/api/users',
      200,
    );
    expect(page.data?.every((user) => typeof user.posts_total === 'number')).toBe(true);
    await call({ url: '/api/users?include=posts&include_limit[posts]=11' }, '/api/users', 422);
  });

  it('answers aggregates as documented: exact decimals, counts, keys, buckets with their offset', async () => {
    const groups = await call(
      {
        url: '/api/users/aggregate?metrics=count,sum:balance,avg:score,max:created_at&group_by=status,department.name',
      },
      '/api/users/aggregate',
      200,
    );
    expect(groups.data?.length).toBeGreaterThan(1);
    const monthly = await call(
      {
        url: '/api/users/aggregate?metrics=count&group_by=created_at:month&tz=Europe/Berlin&from=2024-01-01&to=2024-07-01',
      },
      '/api/users/aggregate',
      200,
    );
    expect(monthly.data).toHaveLength(6);
    await call(
      {
        method: 'POST',
        url: '/api/users/aggregate/query',
        headers: { 'content-type': 'application/json' },
        payload: { query: 'metrics=count&group_by=status&limit=1' },
      },
      '/api/users/aggregate/query',
      200,
    );
    await call({ url: '/api/users/aggregate?metrics=sum:password_hash' }, '/api/users/aggregate', 422);
    // from and to depend on a date bucket: said by both, and their breach is the documented 422.
    const aggregateParams = operation('/api/users/aggregate', 'get').parameters as Json[];
    const aggregateParam = (name: string) =>
      aggregateParams.find((candidate) => candidate.name === name) as Json;
    for (const name of ['from', 'to'])
      expect(aggregateParam(name).description).toContain(
        'Only with a date bucket in group_by (created_at:month), and then required; without one, a 422 keyed by this parameter.',
      );
    const unbounded = await call(
      { url: '/api/users/aggregate?group_by=status&from=2024-01-01&to=2024-02-01' },
      '/api/users/aggregate',
      422,
    );
    expect(Object.keys(unbounded.errors as Json).sort()).toEqual(['from', 'to']);
    const bucketWithoutTo = await call(
      { url: '/api/users/aggregate?group_by=created_at:month&from=2024-01-01' },
      '/api/users/aggregate',
      422,
    );
    expect(Object.keys(bucketWithoutTo.errors as Json)).toEqual(['to']);
    expect(aggregateParam('from').schema).toMatchObject({
      anyOf: [{ format: 'date' }, { format: 'date-time' }],
    });
    // The zones, once in components.schemas.TimeZone, referred to by every aggregate's tz.
    expect(aggregateParam('tz').schema).toEqual({ $ref: '#/components/schemas/TimeZone', default: 'UTC' });
    expect((document.components.schemas.TimeZone as Json).enum).toEqual(
      expect.arrayContaining(['UTC', 'Europe/Berlin']),
    );
    expect(aggregateParam('metrics').schema).toMatchObject({ minItems: 1 });
    // having: per metric it applies to (not avg), its comparisons and the metric's values.
    expect(Object.keys(props(aggregateParam('having').schema as Json))).toEqual([
      'count',
      'sum:balance',
      'max:created_at',
    ]);
    // What the schema refuses: a sum as a float, a group the endpoint does not offer.
    const [first] = groups.data as Json[];
    const answer = (group: Json) => ({ data: [group], meta: groups.meta });
    expect(
      check.errors('/api/users/aggregate', 'get', 200, answer({ ...first, 'sum:balance': 1.5 })).length,
    ).toBeGreaterThan(0);
    expect(
      check.errors('/api/users/aggregate', 'get', 200, answer({ ...first, group: { email: 'x' } })).length,
    ).toBeGreaterThan(0);
    const summary = document['x-resources'].users;
    expect(summary?.aggregate).toEqual({
      schema: 'UsersAggregate',
      metrics: ['count', 'sum:balance', 'avg:score', 'max:created_at'],
      groupBy: ['status', 'department.name', 'created_at:month'],
    });
    expect(document['x-resources'].posts?.aggregate).toBeUndefined();
  });

  it('catches a drift: a member the document does not name, or one missing, fails the check', async () => {
    const response = await service.inject({ method: 'GET', url: '/api/users?count=posts' });
    const body = response.json();
    expect(check.errors('/api/users', 'get', 200, body)).toEqual([]);
    const extra = { ...body, data: [{ ...body.data[0], secret: 1 }, ...body.data.slice(1)] };
    expect(check.errors('/api/users', 'get', 200, extra).length).toBeGreaterThan(0);
    const { per_page: _, ...missing } = body;
    expect(check.errors('/api/users', 'get', 200, missing).length).toBeGreaterThan(0);
    const wrongType = { ...body, data: [{ ...body.data[0], created_at: 12 }] };
    expect(check.errors('/api/users', 'get', 200, wrongType).length).toBeGreaterThan(0);
  });

  it('answers records and their errors as documented (read, create, PATCH, delete, restore; 401/403/404/405/412/415/422/428)', async () => {
    await call({ url: '/api/users/1?include=department&count=posts' }, '/api/users/{id}', 200);
    await call({ url: '/api/users/999999' }, '/api/users/{id}', 404);
    await call({ url: '/api/users/1?page=2' }, '/api/users/{id}', 422);
    const values = {
      name: 'Openapi Person',
      email: `openapi-${dialect}@example.com`,
      status: 'active',
      score: 70,
    };
    const created = await call({ method: 'POST', url: '/api/users', payload: values }, '/api/users', 201);
    const id = String(created.id);
    await call({ method: 'POST', url: '/api/users', payload: values }, '/api/users', 409);
    await call(
      { method: 'POST', url: '/api/users', payload: { ...values, status: 'gone' } },
      '/api/users',
      422,
    );
    await call(
      { method: 'POST', url: '/api/users', payload: 'x', headers: { 'content-type': 'text/plain' } },
      '/api/users',
      415,
    );
    await call({ method: 'POST', url: '/api/users', payload: values, role: 'anonymous' }, '/api/users', 401);
    await call({ method: 'POST', url: '/api/users', payload: values, role: 'viewer' }, '/api/users', 403);
    await call(
      { method: 'PATCH', url: `/api/users/${id}`, payload: { score: 71, birthday: null } },
      '/api/users/{id}',
      200,
    );
    await call({ method: 'DELETE', url: `/api/users/${id}` }, '/api/users/{id}', 204);
    await call({ method: 'POST', url: `/api/users/${id}/restore` }, '/api/users/{id}/restore', 200);

    await call({ method: 'PATCH', url: '/api/posts/1', payload: { score: 3 } }, '/api/posts/{id}', 428);
    await call(
      { method: 'PATCH', url: '/api/posts/1', payload: { score: 3 }, headers: { 'if-match': '"stale"' } },
      '/api/posts/{id}',
      412,
    );
    const read = await service.inject({ method: 'GET', url: '/api/posts/1' });
    await call(
      {
        method: 'PATCH',
        url: '/api/posts/1',
        payload: { score: 3 },
        headers: { 'if-match': String(read.headers.etag) },
      },
      '/api/posts/{id}',
      200,
    );
    // DELETE is not enabled on posts: 405, answered with the documented component.
    const refused = await service.inject({ method: 'DELETE', url: '/api/posts/1' });
    expect(refused.statusCode).toBe(405);
    expect(check.componentErrors('MethodNotAllowed', refused.json())).toEqual([]);
  });

  it('answers every method a path does not enable with 405 and the documented Allow (TRACE, OPTIONS, QUERY, PROPFIND too)', async () => {
    await expectMethodsRefused(service, document, check, [...otherMethods, 'PROPFIND']);
    // The standalone server's probes are read-only the same way.
    for (const method of ['TRACE', 'QUERY', 'POST']) {
      const probe = await service.inject({ method, url: '/health/live' });
      expect(probe.statusCode, method).toBe(405);
      expect(probe.headers.allow).toBe('GET, HEAD');
      expect(check.componentErrors('MethodNotAllowed', probe.json())).toEqual([]);
    }
  });

  it('answers a malformed Authorization header with a documented 401 on every operation', async () => {
    for (const [path, item] of Object.entries(document.paths))
      for (const method of Object.keys(item)) {
        const response = await service.inject({
          method: method === 'x-query' ? 'QUERY' : method.toUpperCase(),
          url: concrete(path),
          headers: { authorization: 'Basic x' },
          ...(method === 'post' || method === 'patch' ? { payload: {} } : {}),
        });
        expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(401);
        expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
        expect(check.errors(path, method, 401, response.json()), `${method} ${path}`).toEqual([]);
      }
  });

  it('with all=true, takes per_page at its documented default and refuses the rest as its parameters say', async () => {
    const parameters = operation('/api/users', 'get').parameters as Json[];
    const param = (name: string) => parameters.find((candidate) => candidate.name === name) as Json;
    const perPage = (param('per_page').schema as Json).default;
    expect(perPage).toBe(15);
    const all = await call({ url: `/api/users?all=true&per_page=${String(perPage)}` }, '/api/users', 200);
    expect(Array.isArray(all)).toBe(true);
    for (const [query, key] of [
      ['per_page=16', 'per_page'],
      ['page=1', 'page'],
      ['pagination=simple', 'pagination'],
      ['cursor=x', 'cursor'],
    ] as const) {
      const refused = await call({ url: `/api/users?all=true&${query}` }, '/api/users', 422);
      expect(Object.keys(refused.errors as Json), query).toEqual([key]);
      expect(String(param(key).description), key).toContain('all=true');
    }
  });

  it('documents the exports where all=true is allowed, and answers them in the documented types', async () => {
    for (const path of ['/api/users', '/api/users/query']) {
      const get = operation(path, path.endsWith('/query') ? 'post' : 'get');
      const ok = (get.responses as Json)['200'] as Json;
      expect(Object.keys(ok.content as Json), path).toEqual([
        'application/json',
        'text/csv',
        'application/x-ndjson',
      ]);
      expect(Object.keys(ok.headers as Json)).toEqual(
        expect.arrayContaining(['Content-Disposition', 'Vary']),
      );
    }
    const format = (operation('/api/users', 'get').parameters as Json[]).find(
      (param) => param.name === 'format',
    );
    expect(format?.schema).toEqual({ enum: ['csv', 'ndjson'] });
    // Posts allow no all=true: no export documented, and format is refused as the document says.
    const posts = operation('/api/posts', 'get');
    expect(Object.keys(((posts.responses as Json)['200'] as Json).content as Json)).toEqual([
      'application/json',
    ]);
    expect((posts.parameters as Json[]).some((param) => param.name === 'format')).toBe(false);
    const refused = await call({ url: '/api/posts?format=csv' }, '/api/posts', 422);
    expect(Object.keys(refused.errors as Json)).toEqual(['format']);
    for (const [query, type] of [
      ['format=csv', 'text/csv; charset=utf-8; header=present'],
      ['format=ndjson', 'application/x-ndjson; charset=utf-8'],
    ] as const) {
      const response = await service.inject({ url: `/api/users?${query}` });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe(type);
      expect(String(response.headers['content-disposition'])).toMatch(/^attachment; filename="users-/);
    }
  });
});

/** A fresh SQLite database with the demo's tables and no rows, for the suite; dropped after it. */
function useDemoDatabase(database: string): () => Connection {
  let connection: Connection | undefined;
  beforeAll(async () => {
    connection = await freshDatabase('sqlite', database);
    await dropSchema(connection);
    await createSchema(connection);
  });
  afterAll(async () => {
    await connection?.db.destroy();
    await dropDatabase('sqlite', database);
  });
  return () => connection as Connection;
}

describe.each(hostNames.filter((name) => name !== 'standalone'))(
  'methods a path does not enable, inside an application (%s, sqlite)',
  (name) => {
    const connection = useDemoDatabase(`openapi_methods_${name.replace(/-/g, '_')}`);
    let host: Host | undefined;
    // Registered after the database's: vitest runs after-hooks last-first, so the host closes first.
    afterAll(async () => host?.close());

    it('are answered 405 with the documented Allow, as by the standalone server', async () => {
      const config = { ...demoConfig, setup: undefined, adminDir: undefined } as ServiceConfig;
      host = await startHost(name, config, connection());
      const document: OpenApiDocument = (await host.inject({ url: '/api/openapi.json' })).json();
      await expectMethodsRefused(host, document, responseChecker(document), otherMethods);
    });
  },
);

describe('the demo configuration', () => {
  const connection = useDemoDatabase('openapi_demo_sqlite');

  it('serves a valid OpenAPI 3.1 document', async () => {
    const service = await createService({ config: demoConfig, connection: connection() });
    const response = await service.handle({ method: 'GET', url: '/api/openapi.json', headers: {} });
    expect(response?.status).toBe(200);
    const document = JSON.parse(String(response?.body)) as OpenApiDocument;
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    expect(document).toEqual(service.openapi);
    for (const endpoint of demoConfig.endpoints)
      expect(document.paths[`/api/${endpoint.path ?? endpoint.resource}`]).toBeDefined();
  });
});
