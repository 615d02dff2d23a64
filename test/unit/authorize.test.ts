import { describe, expect, it } from 'vitest';
import { resources } from '../../examples/demo/resources.js';
import { ErrorBag } from '../../src/errors/error-bag.js';
import { authorize } from '../../src/plan/authorize.js';
import { type CompiledEndpoint, compileEndpoint } from '../../src/plan/endpoint.js';
import type { FilterNode, ListPlan } from '../../src/plan/list-plan.js';
import type { Limits } from '../../src/request/limits.js';
import { parseListQuery } from '../../src/request/parse.js';
import { resolveResources } from '../../src/resource/resolve.js';
import { testEndpoints } from '../support/service.js';

const resolved = resolveResources(resources);

function endpoint(path: string, limits?: Partial<Limits>): CompiledEndpoint {
  const policy = testEndpoints.find((candidate) => (candidate.path ?? candidate.resource) === path);
  if (!policy) throw new Error(`no test endpoint ${path}`);
  return compileEndpoint(policy, resolved, limits);
}

function plan(
  path: string,
  query: string,
  limits?: Partial<Limits>,
): { plan: ListPlan | undefined; errors: Record<string, string[]> } {
  const compiled = endpoint(path, limits);
  const bag = new ErrorBag();
  const result = authorize(parseListQuery(query, compiled.limits, bag), compiled, bag);
  return { plan: result, errors: bag.toEnvelope().errors };
}

/** A FilterNode without the resolved resources (which are large and cyclic): names only. */
type Shape =
  | { kind: 'and' | 'or'; children: Shape[] }
  | {
      kind: 'field';
      hops: string[];
      column: string;
      columnType: string;
      jsonPath?: readonly string[];
      conditions: unknown[];
    }
  | { kind: 'scope'; value: boolean }
  | { kind: 'custom'; name: string; value: unknown };

function shape(node: FilterNode): Shape {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind: node.kind, children: node.children.map(shape) };
    case 'field':
      return {
        kind: 'field',
        hops: node.target.hops.map((hop) => hop.name),
        column: node.target.column,
        columnType: node.target.columnType,
        ...(node.target.jsonPath ? { jsonPath: node.target.jsonPath } : {}),
        conditions: [...node.conditions],
      };
    case 'scope':
      return { kind: 'scope', value: node.value };
    case 'custom':
      return { kind: 'custom', name: node.name, value: node.value };
  }
}

/** The WHERE of a request that must be valid. */
function where(query: string, path = 'users'): Shape[] {
  const result = plan(path, query);
  expect(result.errors).toEqual({});
  expect(result.plan).toBeDefined();
  return (result.plan as ListPlan).where.map(shape);
}

const field = (
  column: string,
  columnType: string,
  conditions: unknown[],
  extra: { hops?: string[]; jsonPath?: string[] } = {},
) => ({
  kind: 'field',
  hops: extra.hops ?? [],
  column,
  columnType,
  ...(extra.jsonPath ? { jsonPath: extra.jsonPath } : {}),
  conditions,
});

describe('authorize', () => {
  describe('field nodes and coerced values', () => {
    it.each<[string, unknown[]]>([
      ['filter[score][gte]=80', [field('score', 'integer', [{ op: 'gte', value: 80 }])]],
      ['filter[status]=active', [field('status', 'string', [{ op: 'eq', value: 'active' }])]],
      ['filter[balance]=100.50', [field('balance', 'decimal', [{ op: 'eq', value: 100.5 }])]],
      ['filter[is_admin]=1', [field('is_admin', 'boolean', [{ op: 'eq', value: true }])]],
      ['filter[is_admin][neq]=false', [field('is_admin', 'boolean', [{ op: 'neq', value: false }])]],
      ['filter[birthday][lt]=2000-02-29', [field('birthday', 'date', [{ op: 'lt', value: '2000-02-29' }])]],
      [
        'filter[created_at][gt]=2024-01-15T11:00:00%2B01:00',
        [field('created_at', 'datetime', [{ op: 'gt', value: '2024-01-15T10:00:00.000Z' }])],
      ],
      [
        'filter[created_at]=2024-01-15',
        [field('created_at', 'datetime', [{ op: 'eq', value: '2024-01-15T00:00:00.000Z' }])],
      ],
      ['filter[score][between]=10,20', [field('score', 'integer', [{ op: 'between', value: [10, 20] }])]],
      ['filter[score][not_in]=1,2,3', [field('score', 'integer', [{ op: 'not_in', value: [1, 2, 3] }])]],
      ['filter[name][contains]=100%25', [field('name', 'string', [{ op: 'contains', value: '100%' }])]],
      [
        'filter[score][gte]=10&filter[score][lt]=20',
        [
          field('score', 'integer', [
            { op: 'gte', value: 10 },
            { op: 'lt', value: 20 },
          ]),
        ],
      ],
    ])('%s', (query, expected) => {
      expect(where(query)).toEqual(expected);
    });

    it('flags: is_null/is_not_null/is_empty/is_not_empty with true/1/false/0', () => {
      expect(where('filter[birthday][is_null]=true')).toEqual([
        field('birthday', 'date', [{ op: 'is_null', negate: false }]),
      ]);
      expect(where('filter[birthday][is_null]=0')).toEqual([
        field('birthday', 'date', [{ op: 'is_null', negate: true }]),
      ]);
      expect(where('filter[birthday][is_not_null]=1')).toEqual([
        field('birthday', 'date', [{ op: 'is_null', negate: true }]),
      ]);
      expect(where('filter[birthday][is_not_null]=false')).toEqual([
        field('birthday', 'date', [{ op: 'is_null', negate: false }]),
      ]);
      expect(where('filter[name][is_empty]=1')).toEqual([
        field('name', 'string', [{ op: 'is_empty', negate: false }]),
      ]);
      expect(where('filter[name][is_not_empty]=true')).toEqual([
        field('name', 'string', [{ op: 'is_empty', negate: true }]),
      ]);
    });

    it('the three list forms give the same condition', () => {
      const forms = [
        'filter[status][in]=active,banned',
        'filter[status][in][]=active&filter[status][in][]=banned',
        'filter[status][in][0]=active&filter[status][in][1]=banned',
      ].map((query) => where(query));
      expect(forms[0]).toEqual([field('status', 'string', [{ op: 'in', value: ['active', 'banned'] }])]);
      expect(forms[1]).toEqual(forms[0]);
      expect(forms[2]).toEqual(forms[0]);
    });

    it('empty values leave no node', () => {
      expect(where('filter[status]=&filter[score][gte]=')).toEqual([]);
    });
  });

  describe('date operators become half-open ranges', () => {
    it.each<[string, unknown]>([
      [
        'filter[created_at][date_eq]=2024-01-15',
        { op: 'range', from: '2024-01-15T00:00:00.000Z', to: '2024-01-16T00:00:00.000Z' },
      ],
      [
        'filter[created_at][date_between]=2024-01-15,2024-01-31',
        { op: 'range', from: '2024-01-15T00:00:00.000Z', to: '2024-02-01T00:00:00.000Z' },
      ],
      [
        'filter[created_at][year]=2023',
        { op: 'range', from: '2023-01-01T00:00:00.000Z', to: '2024-01-01T00:00:00.000Z' },
      ],
      ['filter[birthday][date_eq]=2000-02-29', { op: 'range', from: '2000-02-29', to: '2000-03-01' }],
      [
        'filter[birthday][date_between]=1990-01-01,1990-12-31',
        { op: 'range', from: '1990-01-01', to: '1991-01-01' },
      ],
      ['filter[birthday][year]=1985', { op: 'range', from: '1985-01-01', to: '1986-01-01' }],
    ])('%s', (query, condition) => {
      const [node] = where(query);
      expect(node).toMatchObject({ kind: 'field', conditions: [condition] });
    });

    it('the last day of year 9999 still gives a well-formed upper bound', () => {
      const [node] = where('filter[birthday][date_eq]=9999-12-31');
      const condition = (node as { conditions: { from: string; to: string }[] }).conditions[0];
      expect(condition?.from).toBe('9999-12-31');
      // Either no upper bound, or a date every engine reads (not "+010000-01-01").
      expect(
        condition?.to === undefined || /^\d{4}-\d{2}-\d{2}$/.test(condition.to),
        String(condition?.to),
      ).toBe(true);
    });
  });

  describe('relations and JSON paths', () => {
    it('walks relation hops', () => {
      expect(where('filter[roles.permissions.name]=users.manage')).toEqual([
        field('name', 'string', [{ op: 'eq', value: 'users.manage' }], { hops: ['roles', 'permissions'] }),
      ]);
      expect(where('filter[department.name]=Sales')).toEqual([
        field('name', 'string', [{ op: 'eq', value: 'Sales' }], { hops: ['department'] }),
      ]);
      expect(where('filter[posts.score][gte]=5&filter[posts.score][lte]=10')).toEqual([
        field(
          'score',
          'integer',
          [
            { op: 'gte', value: 5 },
            { op: 'lte', value: 10 },
          ],
          { hops: ['posts'] },
        ),
      ]);
      const [profile] = where('filter[profile.website][is_empty]=1');
      expect(profile).toMatchObject({ hops: ['profile'], column: 'website' });
      const hops = (plan('users', 'filter[roles.name]=admin').plan as ListPlan).where[0] as Extract<
        FilterNode,
        { kind: 'field' }
      >;
      expect(hops.target.hops[0]?.kind).toBe('belongsToMany');
      expect(hops.target.hops[0]?.pivot?.table).toBe('role_user');
    });

    it.each<[string, unknown[]]>([
      ['filter[settings.level][gte]=5', [{ op: 'gte', value: 5, jsonType: 'number' }]],
      ['filter[settings.level]=1.5', [{ op: 'eq', value: 1.5, jsonType: 'number' }]],
      ['filter[settings.theme]=dark', [{ op: 'eq', value: 'dark', jsonType: 'string' }]],
      ['filter[settings.notifications.email]=true', [{ op: 'eq', value: true, jsonType: 'boolean' }]],
      [
        'filter[settings.notifications.email][in]=true,false',
        [{ op: 'in', value: [true, false], jsonType: 'boolean' }],
      ],
      ['filter[settings.level][in]=3,10', [{ op: 'in', value: [3, 10], jsonType: 'number' }]],
      ['filter[settings.level][in]=3,high', [{ op: 'in', value: ['3', 'high'], jsonType: 'string' }]],
      ['filter[settings.level][gte]=true', [{ op: 'gte', value: 'true', jsonType: 'string' }]],
      ['filter[settings.theme][contains]=5', [{ op: 'contains', value: '5', jsonType: 'string' }]],
      ['filter[settings.level][is_null]=1', [{ op: 'is_null', negate: false }]],
    ])('%s is typed by the value', (query, conditions) => {
      const [node] = where(query);
      expect(node).toMatchObject({ kind: 'field', column: 'settings', columnType: 'json', hops: [] });
      expect((node as { conditions: unknown[] }).conditions).toEqual(conditions);
      expect((node as { jsonPath?: readonly string[] }).jsonPath).toEqual(
        query.slice(16, query.indexOf(']')).split('.'),
      );
    });
  });

  describe('groups', () => {
    it('an OR of two fields', () => {
      expect(where('filter[or][0][status]=banned&filter[or][1][score][gte]=95')).toEqual([
        {
          kind: 'or',
          children: [
            field('status', 'string', [{ op: 'eq', value: 'banned' }]),
            field('score', 'integer', [{ op: 'gte', value: 95 }]),
          ],
        },
      ]);
    });

    it('a member with several fields is an AND; a range stays in its member', () => {
      expect(
        where('filter[or][0][score][gte]=1&filter[or][0][status]=active&filter[or][1][status]=banned'),
      ).toEqual([
        {
          kind: 'or',
          children: [
            {
              kind: 'and',
              children: [
                field('score', 'integer', [{ op: 'gte', value: 1 }]),
                field('status', 'string', [{ op: 'eq', value: 'active' }]),
              ],
            },
            field('status', 'string', [{ op: 'eq', value: 'banned' }]),
          ],
        },
      ]);
    });

    it('nested and inside or, beside top-level fields', () => {
      expect(
        where(
          'filter[status]=active&filter[or][0][roles.name]=admin&filter[or][1][and][0][score][gte]=90&filter[or][1][and][1][active]=1',
        ),
      ).toEqual([
        field('status', 'string', [{ op: 'eq', value: 'active' }]),
        {
          kind: 'or',
          children: [
            field('name', 'string', [{ op: 'eq', value: 'admin' }], { hops: ['roles'] }),
            {
              kind: 'and',
              children: [
                field('score', 'integer', [{ op: 'gte', value: 90 }]),
                { kind: 'scope', value: true },
              ],
            },
          ],
        },
      ]);
    });
  });

  describe('scopes, trashed, custom filters, defaults', () => {
    it('a scope carries its boolean', () => {
      expect(where('filter[active]=0')).toEqual([{ kind: 'scope', value: false }]);
    });

    it('trashed sets withTrashed and leaves no node', () => {
      const withTrashed = plan('users', 'filter[trashed]=true');
      expect(withTrashed.plan?.withTrashed).toBe(true);
      expect(withTrashed.plan?.where).toEqual([]);
      expect(plan('users', 'filter[trashed]=0').plan?.withTrashed).toBe(false);
      expect(plan('users', '').plan?.withTrashed).toBe(false);
    });

    it('a custom filter receives the raw value', () => {
      expect(where('filter[email_domain]=example.org')).toEqual([
        { kind: 'custom', name: 'email_domain', value: 'example.org' },
      ]);
      expect(where('filter[email_domain][x]=1')).toEqual([
        { kind: 'custom', name: 'email_domain', value: { x: '1' } },
      ]);
    });

    it('a default applies unless the name is mentioned anywhere', () => {
      const status = (value: string) => field('status', 'string', [{ op: 'eq', value }]);
      expect(where('', 'users-default-status')).toEqual([status('active')]);
      expect(where('filter[score][gte]=1', 'users-default-status')).toEqual([
        field('score', 'integer', [{ op: 'gte', value: 1 }]),
        status('active'),
      ]);
      expect(where('filter[status]=banned', 'users-default-status')).toEqual([status('banned')]);
      expect(where('filter[status]=', 'users-default-status')).toEqual([]);
      expect(where('filter[or][0][status]=&filter[or][1][score]=1', 'users-default-status')).toEqual([
        { kind: 'or', children: [field('score', 'integer', [{ op: 'eq', value: 1 }])] },
      ]);
      expect(where('', 'posts')).toEqual([field('status', 'string', [{ op: 'eq', value: 'published' }])]);
    });
  });

  describe('sort and pages', () => {
    it('sort terms end with the primary key', () => {
      const result = plan('users', 'sort=-score,name');
      expect(result.plan?.sort).toEqual([
        { name: 'score', direction: 'desc' },
        { name: 'name', direction: 'asc' },
        { name: 'id', direction: 'desc' },
      ]);
      expect(plan('users', '').plan?.sort).toEqual([{ name: 'id', direction: 'desc' }]);
    });

    it('page mode defaults to page 1 of 15', () => {
      expect(plan('users', '').plan?.mode).toEqual({ kind: 'length-aware', page: 1, perPage: 15 });
      expect(plan('users', 'page=3&per_page=100').plan?.mode).toEqual({
        kind: 'length-aware',
        page: 3,
        perPage: 100,
      });
    });
  });

  describe('errors are keyed and all collected', () => {
    it.each<[string, string, string[]]>([
      ['users-star', 'filter[roles.name]=admin', ['filter.roles.name']],
      ['users-star', 'filter[settings.theme]=dark', ['filter.settings.theme']],
      ['users-star', 'filter[password_hash]=x', ['filter.password_hash']],
      ['users-roles-wild', 'filter[roles.permissions.name]=x', ['filter.roles.permissions.name']],
      ['users', 'filter[score][gt]=abc', ['filter.score']],
      ['users', 'filter[birthday][date_eq]=2024-13-45', ['filter.birthday']],
      ['users', 'filter[created_at][year]=20x4', ['filter.created_at']],
      ['users', 'filter[score]=2147483648', ['filter.score']],
      ['users', 'filter[score][between]=1', ['filter.score']],
      ['users', 'filter[score][nope]=1', ['filter.score']],
      ['users', 'filter[is_admin][gt]=1', ['filter.is_admin']],
      ['users', 'filter[active]=yes', ['filter.active']],
      ['users', 'filter[trashed]=yes', ['filter.trashed']],
      ['users', 'filter[or][0][trashed]=true', ['filter.trashed']],
      ['users', 'filter[or][0][and][0][secret]=1', ['filter.secret']],
      ['users', 'sort=email', ['sort']],
      ['users', 'page=0&per_page=101', ['page', 'per_page']],
      [
        'users',
        'filter[a]=1&filter[score][gt]=x&sort=nope&page=abc',
        ['filter.a', 'filter.score', 'sort', 'page'],
      ],
    ])('%s ? %s → %j', (path, query, keys) => {
      const result = plan(path, query);
      expect(result.plan).toBeUndefined();
      expect(Object.keys(result.errors).sort()).toEqual([...keys].sort());
    });

    it('between with one value says it needs two values', () => {
      expect(plan('users', 'filter[score][between]=1').errors['filter.score']?.[0]).toContain('two values');
    });

    it('list and value limits come from the endpoint limits', () => {
      const list = plan('users', 'filter[score][in]=1,2,3', { maxListLength: 2 });
      expect(list.errors['filter.score']?.[0]).toMatch(/\b2\b/);
      const long = plan('users', 'filter[name]=abcdef', { maxValueLength: 5 });
      expect(long.errors['filter.name']?.[0]).toMatch(/\b5\b/);
      expect(plan('users', 'filter[name]=abcde', { maxValueLength: 5 }).errors).toEqual({});
    });

    it('a NUL character in a value is refused', () => {
      expect(Object.keys(plan('users', 'filter[name]=a%00b').errors)).toEqual(['filter.name']);
    });
  });
});
