import { describe, expect, it } from 'vitest';
import { endpoints } from '../../examples/demo/endpoints.js';
import { resources } from '../../examples/demo/resources.js';
import {
  ApiError,
  buildListQuery,
  createRecord,
  deleteRecord,
  type FilterOperator,
  type FilterValue,
  fetchRecord,
  isVisible,
  type ListQuery,
  patchRecord,
  recordUrl,
  restoreRecord,
} from '../../src/client/index.js';
import { ErrorBag } from '../../src/errors/error-bag.js';
import { authorize } from '../../src/plan/authorize.js';
import { encodeCursor } from '../../src/plan/cursor.js';
import { compileEndpoint } from '../../src/plan/endpoint.js';
import type { ListPlan, SortTerm } from '../../src/plan/list-plan.js';
import { operatorNames } from '../../src/plan/operators.js';
import { defaultLimits } from '../../src/request/limits.js';
import { parseListQuery } from '../../src/request/parse.js';
import type { EndpointPolicy } from '../../src/resource/policy.js';
import { resolveResources } from '../../src/resource/resolve.js';
import { isVisible as serverIsVisible } from '../../src/schema/visible-when.js';

const users = endpoints[0];
if (!users) throw new Error('the demo has no users endpoint');
const compiled = compileEndpoint(users as EndpointPolicy, resolveResources(resources), undefined);
/** Collection columns, which the demo's users have none of: an array of integers and a SET. */
const gadgets = compileEndpoint(
  { resource: 'gadgets', allowedFilters: ['scores', 'flags'] },
  resolveResources([
    {
      name: 'gadgets',
      table: 'gadgets',
      columns: {
        id: 'integer',
        scores: { type: 'array', of: 'integer' },
        flags: { type: 'set', values: ['a', 'b', 'c'] },
      },
    },
  ]),
  undefined,
);
type Compiled = typeof compiled;

function plan(
  query: string,
  endpoint: Compiled = compiled,
): { plan: ListPlan | undefined; errors: Record<string, string[]> } {
  const bag = new ErrorBag();
  const result = authorize(parseListQuery(query, endpoint.limits, bag), endpoint, bag);
  return { plan: result, errors: bag.toEnvelope().errors };
}

/** The built query string is exactly `expected`, and both plan to the same, valid request. */
function same(request: ListQuery, expected: string, endpoint: Compiled = compiled): void {
  const built = buildListQuery(request);
  expect(built).toBe(expected);
  const fromBuilt = plan(built, endpoint);
  const fromHand = plan(expected, endpoint);
  expect(fromBuilt.errors).toEqual({});
  expect(fromHand.errors).toEqual({});
  expect(fromBuilt.plan).toBeDefined();
  expect(fromBuilt.plan).toEqual(fromHand.plan);
}

/** A value each operator accepts on a column of the demo's users (or of the gadgets, `on`). */
const operatorCases: Record<FilterOperator, { name: string; value: FilterValue; on?: Compiled }> = {
  eq: { name: 'status', value: 'active' },
  neq: { name: 'status', value: 'banned' },
  gt: { name: 'score', value: 10 },
  gte: { name: 'score', value: 80 },
  lt: { name: 'score', value: 50 },
  lte: { name: 'score', value: 99 },
  contains: { name: 'name', value: 'ann' },
  not_contains: { name: 'name', value: 'x y' },
  starts_with: { name: 'email', value: 'admin' },
  not_starts_with: { name: 'email', value: 'z' },
  ends_with: { name: 'email', value: '@example.com' },
  not_ends_with: { name: 'email', value: '.org' },
  is_null: { name: 'birthday', value: true },
  is_not_null: { name: 'birthday', value: false },
  is_empty: { name: 'name', value: true },
  is_not_empty: { name: 'name', value: 1 },
  date_eq: { name: 'created_at', value: '2024-01-15' },
  date_between: { name: 'created_at', value: ['2024-01-01', '2024-03-31'] },
  year: { name: 'birthday', value: 1990 },
  in: { name: 'status', value: ['active', 'inactive'] },
  not_in: { name: 'status', value: ['banned'] },
  between: { name: 'score', value: [10, 20] },
  not_between: { name: 'score', value: [40, 60] },
  has_all: { name: 'scores', value: [3, 7], on: gadgets },
  has_any: { name: 'flags', value: ['a', 'c'], on: gadgets },
};

function written(value: FilterValue): string {
  if (Array.isArray(value))
    return value.map((item, index) => `[${index}]=${encodeURIComponent(String(item))}`).join('&');
  return `=${encodeURIComponent(String(value))}`;
}

describe('buildListQuery', () => {
  it('writes sparse fieldsets by owner, commas readable, and the service reads them back', () => {
    const query = buildListQuery({ include: ['roles'], fields: { users: ['name', 'email'], roles: 'name' } });
    expect(query).toBe('include=roles&fields[users]=name,email&fields[roles]=name');
    const errors = new ErrorBag();
    expect(parseListQuery(query, defaultLimits, errors).fields).toEqual({
      users: 'name,email',
      roles: 'name',
    });
    expect(errors.isEmpty).toBe(true);
  });

  it('covers every operator of the service', () => {
    expect(Object.keys(operatorCases).sort()).toEqual([...operatorNames].sort());
  });

  for (const [op, { name, value, on }] of Object.entries(operatorCases)) {
    it(`writes ${op} as filter[name][${op}] and plans like the hand-written query`, () => {
      const built = written(value);
      const expected = Array.isArray(value)
        ? built
            .split('&')
            .map((part) => `filter[${name}][${op}]${part}`)
            .join('&')
        : `filter[${name}][${op}]${built}`;
      same({ filter: [{ name, op: op as FilterOperator, value }] }, expected, on);
    });
  }

  it('writes the three value shapes: a string, a number or boolean, a list', () => {
    same({ filter: [{ name: 'status', value: 'active' }] }, 'filter[status]=active');
    same({ filter: [{ name: 'score', op: 'gte', value: 80 }] }, 'filter[score][gte]=80');
    same({ filter: [{ name: 'is_admin', value: true }] }, 'filter[is_admin]=true');
    same(
      { filter: [{ name: 'status', op: 'in', value: ['active', 'banned'] }] },
      'filter[status][in][0]=active&filter[status][in][1]=banned',
    );
  });

  it('percent-encodes values but keeps brackets, and a list item may hold a comma', () => {
    expect(buildListQuery({ filter: [{ name: 'name', op: 'contains', value: 'a&b=c d%' }] })).toBe(
      'filter[name][contains]=a%26b%3Dc%20d%25',
    );
    same(
      { filter: [{ name: 'name', op: 'in', value: ['Smith, Anna', 'Bob'] }] },
      'filter[name][in][0]=Smith%2C%20Anna&filter[name][in][1]=Bob',
    );
    same({ search: "o'brien & co" }, "search=o'brien%20%26%20co");
  });

  it('puts several operators of one name under that name (a range)', () => {
    same(
      {
        filter: [
          { name: 'score', op: 'gte', value: 10 },
          { name: 'score', op: 'lt', value: 20 },
          { name: 'status', value: 'active' },
        ],
      },
      'filter[score][gte]=10&filter[score][lt]=20&filter[status]=active',
    );
  });

  it('writes nested groups with indexed members', () => {
    same(
      {
        filter: [
          { name: 'status', value: 'active' },
          {
            or: [
              [{ name: 'roles.name', value: 'admin' }],
              [
                {
                  and: [
                    [{ name: 'score', op: 'gte', value: 90 }],
                    [{ name: 'department.name', value: 'Sales' }],
                  ],
                },
              ],
            ],
          },
        ],
      },
      'filter[status]=active&filter[or][0][roles.name]=admin&filter[or][1][and][0][score][gte]=90&filter[or][1][and][1][department.name]=Sales',
    );
    same(
      {
        filter: [
          {
            or: [
              [
                { name: 'score', op: 'gte', value: 1 },
                { name: 'score', op: 'lte', value: 5 },
              ],
              [{ name: 'status', value: 'banned' }],
            ],
          },
        ],
      },
      'filter[or][0][score][gte]=1&filter[or][0][score][lte]=5&filter[or][1][status]=banned',
    );
  });

  it('moves conditions that cannot share a level into an and group (same meaning)', () => {
    same(
      {
        filter: [
          { name: 'name', op: 'contains', value: 'a' },
          { name: 'name', op: 'contains', value: 'n' },
          { or: [[{ name: 'status', value: 'active' }], [{ name: 'status', value: 'banned' }]] },
          { or: [[{ name: 'score', op: 'gte', value: 50 }], [{ name: 'is_admin', value: true }]] },
        ],
      },
      'filter[name][contains]=a&filter[or][0][status]=active&filter[or][1][status]=banned' +
        '&filter[and][0][name][contains]=n&filter[and][1][or][0][score][gte]=50&filter[and][1][or][1][is_admin]=true',
    );
  });

  it('refuses and/or as a filter name', () => {
    expect(() => buildListQuery({ filter: [{ name: 'or', value: 'x' }] })).toThrow(/group/);
  });

  it('writes include, count, sort, search, page, per_page and all', () => {
    same(
      {
        filter: [{ name: 'trashed', value: true }],
        include: ['roles.permissions', 'department'],
        count: 'posts',
        sort: ['-score', 'name'],
        search: 'ann',
        per_page: 5,
        page: 2,
      },
      'filter[trashed]=true&include=roles.permissions,department&count=posts&sort=-score,name&search=ann&per_page=5&page=2',
    );
    same({ all: true, sort: 'name' }, 'sort=name&all=true');
    same({ pagination: 'simple', page: 3 }, 'pagination=simple&page=3');
    same({ pagination: 'length-aware', page: 1 }, 'page=1');
    expect(buildListQuery({})).toBe('');
  });

  it('writes cursor pagination with an opaque cursor', () => {
    const sort: SortTerm[] = [
      { name: 'score', direction: 'desc' },
      { name: 'id', direction: 'desc' },
    ];
    const cursor = encodeCursor(sort, { direction: 'next', values: [80, 12] });
    same(
      { pagination: 'cursor', sort: '-score', cursor, per_page: 5 },
      `sort=-score&pagination=cursor&cursor=${cursor}&per_page=5`,
    );
  });
});

describe('isVisible', () => {
  it('is the server module', () => {
    expect(isVisible).toBe(serverIsVisible);
    expect(isVisible({ field: 'status', operator: '!==', is: 'banned' }, { status: 'banned' })).toBe(false);
  });
});

/** A fetch that records each request and answers from a list, in order. */
function fakeFetch(...answers: (() => Response)[]) {
  const calls: { url: string; method: string; headers: Record<string, string>; body: unknown }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    calls.push({
      url: String(input),
      method: init?.method ?? 'GET',
      headers: { ...(init?.headers as Record<string, string>) },
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body,
    });
    const answer = answers.shift();
    if (!answer) throw new Error(`unexpected request ${String(input)}`);
    return answer();
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
const envelope = (message: string, errors: Record<string, string[]>) => ({ message, errors });

describe('records API client', () => {
  const base = { baseUrl: 'http://127.0.0.1:3000/', headers: { authorization: 'Bearer t' } };

  it('builds record URLs with the id percent-encoded', () => {
    expect(recordUrl('/api/users/', 42)).toBe('/api/users/42');
    expect(recordUrl('/api/files', 'a/b c', { baseUrl: 'https://x.test/' })).toBe(
      'https://x.test/api/files/a%2Fb%20c',
    );
  });

  it('reads one record with its ETag, include, count and trashed', async () => {
    const { fetch, calls } = fakeFetch(json(200, { id: 42, name: 'Ana' }, { etag: '"abc"' }));
    const result = await fetchRecord(
      '/api/users',
      42,
      { include: ['department'], count: 'posts', trashed: true },
      { ...base, fetch },
    );
    expect(result).toEqual({ record: { id: 42, name: 'Ana' }, etag: '"abc"' });
    expect(calls[0]?.url).toBe(
      'http://127.0.0.1:3000/api/users/42?filter[trashed]=true&include=department&count=posts',
    );
    expect(calls[0]?.headers).toEqual({ accept: 'application/json', authorization: 'Bearer t' });
  });

  it('reads without a query string when nothing is asked, and throws the 404 envelope', async () => {
    const { fetch, calls } = fakeFetch(json(404, envelope('No users record with this id.', { id: ['x'] })));
    const error = await fetchRecord('/api/users', 7, { include: [] }, { fetch }).catch((e: unknown) => e);
    expect(calls[0]?.url).toBe('/api/users/7');
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, envelope: { errors: { id: ['x'] } } });
  });

  it('creates: 201 with the record, ETag and Location; 422 and 409 as refusals keyed by field', async () => {
    const { fetch, calls } = fakeFetch(
      json(201, { id: 9, name: 'Zoë' }, { etag: '"v1"', location: '/api/users/9' }),
      json(422, envelope('The email field is required.', { email: ['The email field is required.'] })),
      json(409, envelope('The email has already been taken.', { email: ['taken'] })),
    );
    expect(await createRecord('/api/users', { name: 'Zoë' }, { ...base, fetch })).toEqual({
      ok: true,
      record: { id: 9, name: 'Zoë' },
      etag: '"v1"',
      location: '/api/users/9',
    });
    expect(calls[0]).toMatchObject({
      url: 'http://127.0.0.1:3000/api/users',
      method: 'POST',
      body: { name: 'Zoë' },
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
    });
    expect(await createRecord('/api/users', {}, { fetch })).toEqual({
      ok: false,
      status: 422,
      message: 'The email field is required.',
      errors: { email: ['The email field is required.'] },
    });
    expect(await createRecord('/api/users', {}, { fetch })).toMatchObject({ ok: false, status: 409 });
  });

  it('sends If-Match on PATCH, returns the new ETag, and a 412 as a refusal', async () => {
    const stale = envelope('The record has changed since you read it.', { record: ['changed'] });
    const { fetch, calls } = fakeFetch(
      json(200, { id: 1, score: 5 }, { etag: '"new"' }),
      json(412, stale),
      json(200, { id: 1, score: 6 }),
    );
    expect(await patchRecord('/api/users', 1, { score: 5 }, { fetch, ifMatch: '"old"' })).toEqual({
      ok: true,
      record: { id: 1, score: 5 },
      etag: '"new"',
    });
    expect(calls[0]?.headers['if-match']).toBe('"old"');
    expect(calls[0]?.method).toBe('PATCH');
    expect(await patchRecord('/api/users', 1, { score: 6 }, { fetch, ifMatch: '"old"' })).toEqual({
      ok: false,
      status: 412,
      ...stale,
    });
    const blind = await patchRecord('/api/users', 1, { score: 6 }, { fetch });
    expect(blind).toEqual({ ok: true, record: { id: 1, score: 6 }, etag: undefined });
    expect(calls[2]?.headers).not.toHaveProperty('if-match');
  });

  it('deletes with If-Match: 204 ok, 412 and 409 refused, 405 thrown', async () => {
    const { fetch, calls } = fakeFetch(
      () => new Response(null, { status: 204 }),
      json(412, envelope('changed', { record: ['changed'] })),
      json(409, envelope('Other records refer to it.', { record: ['refer'] })),
      json(405, envelope('DELETE is not enabled here.', {}), { allow: 'GET, HEAD, PATCH' }),
    );
    expect(await deleteRecord('/api/users', 3, { fetch, ifMatch: '"e"' })).toEqual({ ok: true });
    expect(calls[0]).toMatchObject({ url: '/api/users/3', method: 'DELETE', body: undefined });
    expect(calls[0]?.headers['if-match']).toBe('"e"');
    expect(calls[0]?.headers).not.toHaveProperty('content-type');
    expect(await deleteRecord('/api/users', 3, { fetch, ifMatch: '"e"' })).toMatchObject({ status: 412 });
    expect(await deleteRecord('/api/users', 3, { fetch })).toMatchObject({ ok: false, status: 409 });
    await expect(deleteRecord('/api/users', 3, { fetch })).rejects.toMatchObject({ status: 405 });
  });

  it('restores with POST <id>/restore and returns the record with its ETag', async () => {
    const { fetch, calls } = fakeFetch(
      json(200, { id: 3, deleted_at: null }, { etag: '"r"' }),
      json(404, envelope('No users record with this id.', { id: ['x'] })),
    );
    expect(await restoreRecord('/api/users', 3, { ...base, fetch })).toEqual({
      record: { id: 3, deleted_at: null },
      etag: '"r"',
    });
    expect(calls[0]).toMatchObject({ url: 'http://127.0.0.1:3000/api/users/3/restore', method: 'POST' });
    await expect(restoreRecord('/api/users', 3, { fetch })).rejects.toBeInstanceOf(ApiError);
  });
});
