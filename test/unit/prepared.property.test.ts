import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { resources } from '../../examples/demo/resources.js';
import { ErrorBag } from '../../src/errors/error-bag.js';
import { RequestError } from '../../src/errors/request-error.js';
import { authorize } from '../../src/plan/authorize.js';
import { compileEndpoint } from '../../src/plan/endpoint.js';
import type { CursorValue, ListPlan, QueryShape } from '../../src/plan/list-plan.js';
import { parseListQuery } from '../../src/request/parse.js';
import { defineEndpoint } from '../../src/resource/policy.js';
import { resolveResources } from '../../src/resource/resolve.js';
import { type Connection, connect } from '../../src/sql/connect.js';
import type { Statement } from '../../src/sql/dialect.js';
import { PreparedQueries, type RowsOptions } from '../../src/sql/prepared.js';
import { expectEqual } from '../support/equal.js';
import { testEndpoints } from '../support/service.js';

/**
 * A prepared shape is reused for every request with the same key, so the key must name everything the
 * SQL depends on. Checked here: for random sequences of requests (values drawn from a small set, so
 * shapes repeat with other values), the endpoint's prepared statements equal a fresh compilation's, SQL
 * text and parameters alike. No database is queried: the compilers only compile.
 */
const compileOnly: Record<string, string> = {
  sqlite: 'sqlite::memory:',
  postgres: 'postgres://nobody@127.0.0.1:1/none',
  mysql: 'mysql://nobody@127.0.0.1:1/none',
};

const registry = resolveResources(resources);
const usersPolicy = testEndpoints[0];
if (!usersPolicy) throw new Error('the test endpoints changed');
/** The test suite's users endpoint, with counts and search added: every part of a plan the SQL uses. */
const endpoint = compileEndpoint(
  defineEndpoint({
    ...usersPolicy,
    allowedCounts: ['posts', 'roles'],
    allowedSearch: ['name', 'email', 'department.name'],
  }),
  registry,
  undefined,
);

const text = {
  ops: ['', 'neq', 'in', 'not_in', 'contains', 'not_starts_with', 'ends_with', 'is_null', 'is_empty'],
  values: ['active', 'Ann', 'x%_!', 'true', '5', '5,abc', 'a,b,c', '1'],
};
const number = {
  ops: ['', 'gt', 'gte', 'lte', 'neq', 'in', 'between', 'not_between', 'is_null'],
  values: ['1', '2', '0', '-3.5', '1,2', '5,7', '3,4,5', 'abc'],
};
const date = {
  ops: ['', 'gt', 'date_eq', 'year', 'between', 'is_null'],
  values: ['2024-01-15', '2023-06-30', '9999-12-31', '2024-01-01,2024-12-31', '2024', '9999'],
};
const datetime = {
  ops: ['', 'gte', 'lt', 'date_eq', 'year', 'between'],
  values: [
    '2024-01-15T10:00:00Z',
    '2024-01-15T10:00:00-05:00',
    '2024-01-15',
    '2024',
    '2024-01-01,2024-12-31',
    '2024-01-01T00:00:00Z,2024-12-31T00:00:00Z',
  ],
};
/** Mixed lists ("5,abc": text, one of them number-like) need the JSON type test; "a,b" does not. */
const json = {
  ops: ['', 'in', 'not_in', 'neq', 'gt', 'contains', 'is_null'],
  values: ['dark', '5', 'true', '5,abc', 'a,b', 'abc,7'],
};
/**
 * The JSON column itself, as an array: a member that reads as a number or true/false has more forms
 * than one that does not ("5,x" and "x,5" are two shapes, "5,true" and "1,false" one).
 */
const jsonArray = {
  ops: ['has_all', 'has_any', 'is_null'],
  values: ['dark', '5', 'true', '5,x', 'x,5', 'a,b', '1,false', '5,true,x'],
};
/** Per filter name, the operators and values that mostly make valid requests (some stay invalid). */
const filters: Record<string, { ops: string[]; values: string[] }> = {
  status: text,
  name: text,
  'roles.name': text,
  'roles.permissions.name': text,
  'department.name': text,
  score: number,
  balance: number,
  'posts.score': number,
  birthday: date,
  created_at: datetime,
  is_admin: { ops: ['', 'neq', 'is_null'], values: ['true', 'false', '1', '0'] },
  'settings.theme': json,
  'settings.level': json,
  'settings.notifications.email': json,
  settings: jsonArray,
  email_domain: { ops: [''], values: ['example.org', 'a,b'] },
};

/** A filter clause, and the value a second request of (often) the same shape gives it. */
const clause = fc.constantFrom(...Object.keys(filters)).chain((name) => {
  const { ops, values } = filters[name] as { ops: string[]; values: string[] };
  return fc.record({
    name: fc.constant(name),
    op: fc.constantFrom(...ops),
    value: fc.constantFrom(...values),
    other: fc.constantFrom(...values),
  });
});
const filterText = (prefix: string, c: { name: string; op: string }, value: string) =>
  `${prefix}[${c.name}]${c.op ? `[${c.op}]` : ''}=${encodeURIComponent(value)}`;

const cursorValue = fc.constantFrom<CursorValue>(null, 7, 0, 'abc', 'true', '2024-01-15', true, false, 2.5);
const cursorValues = fc.array(cursorValue, { minLength: 3, maxLength: 3 });
const sorts = ['', 'name', '-score,name', 'birthday', '-created_at'];
const trashed = ['', 'true', 'false'];
const counts = ['', 'posts', 'posts,roles'];
const searches = ['', 'ann', 'x%_'];

const baseRequest = fc.record({
  clauses: fc.array(clause, { maxLength: 2 }),
  or: fc.array(clause, { maxLength: 2 }),
  group: fc.constantFrom('or', 'and'),
  sort: fc.constantFrom(...sorts),
  trashed: fc.constantFrom(...trashed),
  count: fc.constantFrom(...counts),
  search: fc.constantFrom(...searches),
  page: fc.oneof(
    fc.record({
      kind: fc.constant('offset' as const),
      limit: fc.constantFrom(15, 16),
      offset: fc.constantFrom(0, 15),
    }),
    fc.record({
      kind: fc.constant('cursor' as const),
      after: cursorValues,
      other: cursorValues,
      reverse: fc.boolean(),
    }),
    fc.constant({ kind: 'all' as const }),
  ),
});
type Request = typeof baseRequest extends fc.Arbitrary<infer T> ? T : never;

const next = (list: string[], item: string) => list[(list.indexOf(item) + 1) % list.length] as string;
const flipSort = (sort: string) =>
  sort
    .split(',')
    .filter(Boolean)
    .map((term) => (term.startsWith('-') ? term.slice(1) : `-${term}`))
    .join(',');

/**
 * The request's neighbours: the same request with one thing changed (one filter's value; the sort
 * directions; trashed, count, search; the offset, one cursor value or the cursor's direction). A key that misses a difference
 * shows up as a neighbour reusing a statement a fresh compilation would not give.
 */
function neighbours(r: Request): Request[] {
  const { page } = r;
  const pages =
    page.kind === 'offset'
      ? [{ ...page, offset: page.offset === 0 ? (15 as const) : (0 as const) }]
      : page.kind === 'cursor'
        ? [
            { ...page, reverse: !page.reverse },
            ...page.after.map((_, i) => ({
              ...page,
              after: page.after.map((v, j) => (i === j ? (page.other[j] ?? null) : v)),
            })),
          ]
        : [];
  type Clause = Request['clauses'][number];
  /** The request with clause `i` (of `clauses`, then of the group) changed by `change`. */
  const changed = (i: number, change: (c: Clause) => Clause): Request => {
    const swap = (list: Request['clauses'], offset: number) =>
      list.map((c, j) => (j + offset === i ? change(c) : c));
    return { ...r, clauses: swap(r.clauses, 0), or: swap(r.or, r.clauses.length) };
  };
  const names = Object.keys(filters);
  const clauseChanges = [...r.clauses, ...r.or].flatMap((_, i) => [
    changed(i, (c) => ({ ...c, value: c.other })),
    changed(i, (c) => ({ ...c, name: next(names, c.name) })),
    changed(i, (c) => ({ ...c, op: next(filters[c.name]?.ops ?? [], c.op) })),
  ]);
  return [
    r,
    ...clauseChanges,
    { ...r, group: r.group === 'or' ? 'and' : 'or' },
    { ...r, sort: flipSort(r.sort) },
    { ...r, trashed: next(trashed, r.trashed) },
    { ...r, count: next(counts, r.count) },
    { ...r, search: next(searches, r.search) },
    ...pages.map((p) => ({ ...r, page: p })),
  ];
}

function request(r: Request): { query: string; options: RowsOptions } {
  const parts = r.clauses.map((c) => filterText('filter', c, c.value));
  r.or.forEach((c, i) => {
    parts.push(filterText(`filter[${r.group}][${i}]`, c, c.value));
  });
  if (r.sort) parts.push(`sort=${r.sort}`);
  if (r.trashed) parts.push(`filter[trashed]=${r.trashed}`);
  if (r.count) parts.push(`count=${r.count}`);
  if (r.search) parts.push(`search=${encodeURIComponent(r.search)}`);
  const { page } = r;
  // A cursor carries one value per sort term (the primary key's last).
  const terms = r.sort.split(',').filter(Boolean).length + 1;
  const options: RowsOptions =
    page.kind === 'offset'
      ? { limit: page.limit, offset: page.offset }
      : page.kind === 'cursor'
        ? { limit: 16, after: page.after.slice(0, terms), reverse: page.reverse }
        : {};
  return { query: parts.join('&'), options };
}

/** A statement, or the client error a custom filter raised (the same either way). */
function outcome(make: () => Statement): Statement | RequestError {
  try {
    return make();
  } catch (error) {
    if (error instanceof RequestError) return error;
    throw error;
  }
}

/** Cuts asked of one plan besides its own: another page, another size, the other direction. */
const otherCuts: RowsOptions[] = [
  { limit: 5 },
  { limit: 5, offset: 10 },
  { limit: 5, offset: 20 },
  { limit: 6, offset: 10 },
  { limit: 5, reverse: true },
];

describe('prepared shapes', () => {
  const connections: Connection[] = [];
  afterAll(async () => {
    for (const connection of connections) await connection.db.destroy();
  });

  for (const [name, url] of Object.entries(compileOnly)) {
    it(`reuse a compiled shape only where a fresh compilation gives the same statement (${name})`, () => {
      const connection = connect(url);
      connections.push(connection);
      const fresh = new PreparedQueries(
        connection.db,
        connection.dialect,
        endpoint.policy,
        endpoint.resource,
        0,
      );
      let planned = 0;
      const id = endpoint.resource.columns.get('id');
      if (!id) throw new Error('users has no id column');
      const key = [{ hops: [], column: id.name, columnType: id.type, storage: id.storage }];
      fc.assert(
        fc.property(baseRequest, (r) => {
          // The first request's shapes are compiled and kept; a neighbour reuses them when the keys match.
          const prepared = new PreparedQueries(
            connection.db,
            connection.dialect,
            endpoint.policy,
            endpoint.resource,
          );
          let first: ListPlan | undefined;
          for (const neighbour of neighbours(r)) {
            const { query, options: cut } = request(neighbour);
            const errors = new ErrorBag();
            const plan = authorize(parseListQuery(query, endpoint.limits, errors), endpoint, errors);
            if (!plan) continue;
            planned += 1;
            first ??= plan;
            // A fresh compilation of each statement, once (`fresh` keeps nothing: compiling it again
            // gives the same).
            const expected = {
              count: outcome(() => fresh.count(plan, undefined)),
              rows: outcome(() => fresh.rows(plan, cut, undefined)),
              one: outcome(() => fresh.one(plan, key, [7], undefined)),
              otherCuts: otherCuts.map((other) => outcome(() => fresh.rows(plan, other, undefined))),
            };
            // Twice: the second reuses the walk of the plan's filters (as a cached plan does).
            for (let again = 0; again < 2; again++) {
              expectEqual(
                outcome(() => prepared.count(plan, undefined)),
                expected.count,
              );
              expectEqual(
                outcome(() => prepared.rows(plan, cut, undefined)),
                expected.rows,
              );
              expectEqual(
                outcome(() => prepared.one(plan, key, [7], undefined)),
                expected.one,
              );
              // Other cuts of the same plan: a page statement bound for one cut is not another's.
              otherCuts.forEach((other, i) => {
                expectEqual(
                  outcome(() => prepared.rows(plan, other, undefined)),
                  expected.otherCuts[i],
                );
              });
            }
            // The first plan's filters with this one's sort, trashed flag or counts (a cursor's page
            // shares its plan's filters): the walk of the first is not taken for them.
            for (const mixed of [
              { ...first, sort: plan.sort },
              { ...first, withTrashed: plan.withTrashed },
              { ...first, counts: plan.counts },
            ])
              expectEqual(
                outcome(() => prepared.rows(mixed, { limit: 15 }, undefined)),
                outcome(() => fresh.rows(mixed, { limit: 15 }, undefined)),
              );
          }
        }),
        // Bounded so that the check takes seconds on each engine: each run compiles about a dozen
        // neighbours twice (some 1,800 plans an engine; the generator is the same for the three).
        { numRuns: 150 },
      );
      // The generator must produce valid requests, or this test checks nothing.
      expect(planned).toBeGreaterThan(750);
    }, 120_000);
  }

  /** Plans of query strings, and two sets of prepared queries on SQLite: one keeping shapes, one not. */
  function planning() {
    const connection = connect('sqlite::memory:');
    connections.push(connection);
    const planOf = (query: string) => {
      const errors = new ErrorBag();
      const planned = authorize(parseListQuery(query, endpoint.limits, errors), endpoint, errors);
      if (!planned) throw new Error(JSON.stringify(errors.toEnvelope()));
      return planned;
    };
    const prepared = new PreparedQueries(
      connection.db,
      connection.dialect,
      endpoint.policy,
      endpoint.resource,
    );
    const fresh = new PreparedQueries(
      connection.db,
      connection.dialect,
      endpoint.policy,
      endpoint.resource,
      0,
    );
    return { planOf, prepared, fresh };
  }

  it("takes a plan's walk for a plan sharing its filters only when sort, trashed and counts are the same", () => {
    const { planOf, prepared, fresh } = planning();
    const base = planOf('filter[status]=active&sort=name');
    const other = planOf('filter[status]=active&sort=-score&filter[trashed]=true&count=posts');
    expect(prepared.rows(base, { limit: 15 }, undefined)).toEqual(fresh.rows(base, { limit: 15 }, undefined));
    for (const mixed of [
      { ...base, sort: other.sort },
      { ...base, withTrashed: other.withTrashed },
      { ...base, counts: other.counts },
    ]) {
      const statement = prepared.rows(mixed, { limit: 15 }, undefined);
      expect(statement).toEqual(fresh.rows(mixed, { limit: 15 }, undefined));
      expect(statement.sql).not.toBe(prepared.rows(base, { limit: 15 }, undefined).sql);
    }
  });

  it("takes a cursor page's statement for another page only with the same sort, cut and classes of cursor values", () => {
    const { planOf, prepared, fresh } = planning();
    const base = planOf('pagination=cursor&sort=-birthday');
    // Each page of a scroll is its plan with the cursor added: the same filters array, a new object.
    const page = () => ({ ...base });
    const byName = planOf('pagination=cursor&sort=name');
    const trashed = planOf('pagination=cursor&sort=-birthday&filter[trashed]=true');
    const pages: [QueryShape, RowsOptions][] = [
      [page(), { limit: 16, after: ['2020-01-01', 5] }],
      [page(), { limit: 16, after: ['2021-06-30', 9] }],
      [page(), { limit: 16, after: [null, 5] }],
      [page(), { limit: 16, after: ['2020-01-01', 5], reverse: true }],
      [page(), { limit: 6, after: ['2020-01-01', 5] }],
      [page(), { limit: 16, offset: 3, after: ['2020-01-01', 5] }],
      [
        { ...base, sort: byName.sort },
        { limit: 16, after: ['2020-01-01', 5] },
      ],
      [
        { ...base, withTrashed: trashed.withTrashed },
        { limit: 16, after: ['2020-01-01', 5] },
      ],
      [page(), { limit: 16, after: ['2022-02-02', 11] }],
    ];
    const seen = new Set<string>();
    for (const [plan, cut] of pages) {
      const statement = prepared.rows(plan, cut, undefined);
      expect(statement).toEqual(fresh.rows(plan, cut, undefined));
      seen.add(statement.sql);
    }
    // Five statements: the scroll's, after a null (`is null`), reversed, by name, with trashed rows;
    // the other cuts differ only in bound values (the limit, the offset, the cursor's).
    expect(seen.size).toBe(5);
  });

  it('reads only the columns a fieldset needs: those answered, the key, the include keys, and the sort where a page continues from it', () => {
    const connection = connect('sqlite::memory:');
    connections.push(connection);
    const fieldsEndpoint = compileEndpoint(
      defineEndpoint({ resource: 'users', allowedSorts: ['score'], allowedIncludes: ['department'] }),
      registry,
      undefined,
    );
    const prepared = new PreparedQueries(
      connection.db,
      connection.dialect,
      fieldsEndpoint.policy,
      fieldsEndpoint.resource,
    );
    const selected = (query: string) => {
      const errors = new ErrorBag();
      const plan = authorize(parseListQuery(query, fieldsEndpoint.limits, errors), fieldsEndpoint, errors);
      if (!plan) throw new Error(JSON.stringify(errors.toEnvelope()));
      const { sql } = prepared.rows(plan, { limit: 15 }, undefined);
      return [...sql.matchAll(/"t0"\."(\w+)" as "/g)].map((match) => match[1]).sort();
    };
    // A numbered page is read at once: the sort orders it, nothing continues from its values.
    expect(selected('fields[users]=name&sort=score&include=department')).toEqual([
      'department_id',
      'id',
      'name',
    ]);
    // A cursor page's next cursor is made of them.
    expect(selected('fields[users]=name&sort=score&include=department&pagination=cursor')).toEqual([
      'department_id',
      'id',
      'name',
      'score',
    ]);
  });

  it("calls the endpoint's callbacks on every request: their SQL is never reused", () => {
    const connection = connect('sqlite::memory:');
    connections.push(connection);
    const plan = (query: string, target = endpoint) => {
      const errors = new ErrorBag();
      const planned = authorize(parseListQuery(query, target.limits, errors), target, errors);
      if (!planned) throw new Error(JSON.stringify(errors.toEnvelope()));
      return planned;
    };
    let baseQueryCalls = 0;
    const withBaseQuery = compileEndpoint(
      defineEndpoint({
        resource: 'users',
        allowedFilters: ['status'],
        baseQuery: ({ eb, column }) => {
          baseQueryCalls += 1;
          return eb(column('score'), '>=', baseQueryCalls);
        },
      }),
      registry,
      undefined,
    );
    const tenant = new PreparedQueries(
      connection.db,
      connection.dialect,
      withBaseQuery.policy,
      withBaseQuery.resource,
    );
    const first = tenant.rows(plan('filter[status]=active', withBaseQuery), { limit: 15 }, undefined);
    const second = tenant.rows(plan('filter[status]=active', withBaseQuery), { limit: 15 }, undefined);
    expect(baseQueryCalls).toBe(2);
    expect(second.parameters).not.toEqual(first.parameters);

    // A custom filter (email_domain) and a scope (active) are called again for each request too.
    const prepared = new PreparedQueries(
      connection.db,
      connection.dialect,
      endpoint.policy,
      endpoint.resource,
    );
    const domains = ['example.org', 'test.io'].map(
      (domain) => prepared.count(plan(`filter[email_domain]=${domain}`), undefined).parameters,
    );
    expect(domains[0]).toContain('%@example.org');
    expect(domains[1]).toContain('%@test.io');
    const fresh = new PreparedQueries(
      connection.db,
      connection.dialect,
      endpoint.policy,
      endpoint.resource,
      0,
    );
    for (const query of ['filter[active]=true', 'filter[active]=false', 'filter[active]=true'])
      expect(prepared.count(plan(query), undefined)).toEqual(fresh.count(plan(query), undefined));
  });
});
