import { describe, expect, it } from 'vitest';
import { endpoints } from '../../examples/demo/endpoints.js';
import { resources } from '../../examples/demo/resources.js';
import {
  buildListQuery,
  type FilterOperator,
  type FilterValue,
  isVisible,
  type ListQuery,
} from '../../src/client/index.js';
import { authorize } from '../../src/plan/authorize.js';
import { encodeCursor } from '../../src/plan/cursor.js';
import { compileEndpoint } from '../../src/plan/endpoint.js';
import type { ListPlan, SortTerm } from '../../src/plan/list-plan.js';
import { operatorNames } from '../../src/plan/operators.js';
import { parseListQuery } from '../../src/request/parse.js';
import type { EndpointPolicy } from '../../src/resource/policy.js';
import { resolveResources } from '../../src/resource/registry.js';
import { ErrorBag } from '../../src/respond/error-bag.js';
import { isVisible as serverIsVisible } from '../../src/schema/visible-when.js';

const users = endpoints[0];
if (!users) throw new Error('the demo has no users endpoint');
const compiled = compileEndpoint(users as EndpointPolicy, resolveResources(resources), undefined);

function plan(query: string): { plan: ListPlan | undefined; errors: Record<string, string[]> } {
  const bag = new ErrorBag();
  const result = authorize(parseListQuery(query, compiled.limits, bag), compiled, bag);
  return { plan: result, errors: bag.toEnvelope().errors };
}

/** The built query string is exactly `expected`, and both plan to the same, valid request. */
function same(request: ListQuery, expected: string): void {
  const built = buildListQuery(request);
  expect(built).toBe(expected);
  const fromBuilt = plan(built);
  const fromHand = plan(expected);
  expect(fromBuilt.errors).toEqual({});
  expect(fromHand.errors).toEqual({});
  expect(fromBuilt.plan).toBeDefined();
  expect(fromBuilt.plan).toEqual(fromHand.plan);
}

/** A value each operator accepts on a column of the demo's users. */
const operatorCases: Record<FilterOperator, { name: string; value: FilterValue }> = {
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
};

function written(value: FilterValue): string {
  if (Array.isArray(value))
    return value.map((item, index) => `[${index}]=${encodeURIComponent(String(item))}`).join('&');
  return `=${encodeURIComponent(String(value))}`;
}

describe('buildListQuery', () => {
  it('covers every operator of the service', () => {
    expect(Object.keys(operatorCases).sort()).toEqual([...operatorNames].sort());
  });

  for (const [op, { name, value }] of Object.entries(operatorCases)) {
    it(`writes ${op} as filter[name][${op}] and plans like the hand-written query`, () => {
      const built = written(value);
      const expected = Array.isArray(value)
        ? built
            .split('&')
            .map((part) => `filter[${name}][${op}]${part}`)
            .join('&')
        : `filter[${name}][${op}]${built}`;
      same({ filter: [{ name, op: op as FilterOperator, value }] }, expected);
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
      { column: 'score', direction: 'desc' },
      { column: 'id', direction: 'desc' },
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
