import { describe, expect, it } from 'vitest';
import { ErrorBag } from '../../src/errors/error-bag.js';
import { defaultLimits, type Limits } from '../../src/request/limits.js';
import type { ListRequest } from '../../src/request/list-request.js';
import { parseListQuery } from '../../src/request/parse.js';

function parse(
  query: string,
  limits: Partial<Limits> = {},
): { request: ListRequest; errors: Record<string, string[]> } {
  const bag = new ErrorBag();
  const request = parseListQuery(query, { ...defaultLimits, ...limits }, bag);
  return { request, errors: bag.toEnvelope().errors };
}

describe('parseListQuery', () => {
  describe('list forms', () => {
    it('[] and indexed forms give the same list', () => {
      const brackets = parse('filter[status][in][]=active&filter[status][in][]=banned');
      const indexed = parse('filter[status][in][0]=active&filter[status][in][1]=banned');
      const reversed = parse('filter[status][in][1]=banned&filter[status][in][0]=active');
      expect(brackets.errors).toEqual({});
      expect(brackets.request.filter).toEqual({
        fields: [{ name: 'status', raw: { in: ['active', 'banned'] } }],
        groups: [],
      });
      expect(indexed.request.filter).toEqual(brackets.request.filter);
      expect(reversed.request.filter).toEqual(brackets.request.filter);
    });

    it('CSV stays one text, split later by the operator (so a bracket form can carry commas)', () => {
      const csv = parse('filter[status][in]=active,banned');
      expect(csv.errors).toEqual({});
      expect(csv.request.filter.fields).toEqual([{ name: 'status', raw: { in: 'active,banned' } }]);
      const comma = parse('filter[name][in][]=a,b&filter[name][in][]=c');
      expect(comma.request.filter.fields).toEqual([{ name: 'name', raw: { in: ['a,b', 'c'] } }]);
    });

    it('a bare value is a string, an operator map an object', () => {
      const { request } = parse('filter[status]=active&filter[score][gte]=1&filter[score][lte]=5');
      expect(request.filter.fields).toEqual([
        { name: 'status', raw: 'active' },
        { name: 'score', raw: { gte: '1', lte: '5' } },
      ]);
    });

    it('decodes percent-encoded brackets and values', () => {
      const { request } = parse('filter%5Bname%5D%5Bcontains%5D=100%25');
      expect(request.filter.fields).toEqual([{ name: 'name', raw: { contains: '100%' } }]);
    });
  });

  describe('empty values', () => {
    it('are pruned but still mentioned', () => {
      const { request, errors } = parse(
        'filter[status]=&filter[score][gte]=&filter[score][lte]=5&filter[name][in][]=',
      );
      expect(errors).toEqual({});
      expect(request.filter.fields).toEqual([{ name: 'score', raw: { lte: '5' } }]);
      expect([...request.mentioned].sort()).toEqual(['name', 'score', 'status']);
    });

    it('drop empty list items of bracket forms', () => {
      const { request } = parse('filter[status][in][]=&filter[status][in][]=banned');
      expect(request.filter.fields).toEqual([{ name: 'status', raw: { in: ['banned'] } }]);
    });

    it('a member with only empty filters disappears, and so does a group left empty', () => {
      const some = parse('filter[or][0][status]=&filter[or][1][score][gte]=95');
      expect(some.request.filter.groups).toEqual([
        { kind: 'or', members: [{ fields: [{ name: 'score', raw: { gte: '95' } }], groups: [] }] },
      ]);
      const none = parse('filter[or][0][status]=&filter[or][1][score][gte]=');
      expect(none.request.filter).toEqual({ fields: [], groups: [] });
      expect(none.request.mentioned.has('status')).toBe(true);
      expect(none.errors).toEqual({});
    });

    it('filter= alone is no filter, filter=x is an error', () => {
      expect(parse('filter=').errors).toEqual({});
      expect(Object.keys(parse('filter=x').errors)).toEqual(['filter']);
    });
  });

  describe('groups', () => {
    it('builds or members, each the AND of its own fields', () => {
      const { request, errors } = parse(
        'filter[or][0][score][gte]=1&filter[or][0][score][lte]=5&filter[or][1][status]=banned',
      );
      expect(errors).toEqual({});
      expect(request.filter).toEqual({
        fields: [],
        groups: [
          {
            kind: 'or',
            members: [
              { fields: [{ name: 'score', raw: { gte: '1', lte: '5' } }], groups: [] },
              { fields: [{ name: 'status', raw: 'banned' }], groups: [] },
            ],
          },
        ],
      });
    });

    it('nests groups and records names of every depth as mentioned', () => {
      const { request } = parse(
        'filter[status]=active&filter[or][0][roles.name]=admin&filter[or][1][and][0][score][gte]=90&filter[or][1][and][1][department.name]=Sales',
      );
      expect(request.filter).toEqual({
        fields: [{ name: 'status', raw: 'active' }],
        groups: [
          {
            kind: 'or',
            members: [
              { fields: [{ name: 'roles.name', raw: 'admin' }], groups: [] },
              {
                fields: [],
                groups: [
                  {
                    kind: 'and',
                    members: [
                      { fields: [{ name: 'score', raw: { gte: '90' } }], groups: [] },
                      { fields: [{ name: 'department.name', raw: 'Sales' }], groups: [] },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      });
      expect([...request.mentioned].sort()).toEqual(['department.name', 'roles.name', 'score', 'status']);
    });

    it('keeps member order by index, gaps allowed', () => {
      const { request } = parse('filter[or][5][status]=b&filter[or][0][status]=a');
      expect(request.filter.groups[0]?.members.map((m) => m.fields[0]?.raw)).toEqual(['a', 'b']);
    });

    it('refuses a group that is not a list of members', () => {
      expect(Object.keys(parse('filter[or][status]=active').errors)).toEqual(['filter.or']);
      expect(Object.keys(parse('filter[or][0]=active').errors)).toEqual(['filter.or']);
      expect(Object.keys(parse('filter[or][0][and]=x').errors)).toEqual(['filter.or.and']);
    });
  });

  describe('limits', () => {
    const nest = (levels: number) => `filter${'[or][0]'.repeat(levels)}[status]=x`;

    it('accepts groups up to maxGroupDepth', () => {
      expect(parse(nest(4)).errors).toEqual({});
      expect(parse(nest(2), { maxGroupDepth: 2 }).errors).toEqual({});
    });

    it('refuses deeper groups, naming the limit', () => {
      for (const [levels, limit] of [
        [5, 4],
        [3, 2],
        [30, 4],
      ] as const) {
        const { errors, request } = parse(nest(levels), { maxGroupDepth: limit });
        expect(Object.keys(errors)).toEqual(['filter']);
        expect(errors.filter?.[0]).toMatch(new RegExp(`\\b${limit}\\b`));
        expect(request.filter.groups.length === 0 || levels <= limit).toBe(true);
      }
    });

    it('counts conditions (one per filter and operator), in groups too', () => {
      const conditions = (n: number) =>
        Array.from({ length: n }, (_, i) => `filter[or][${i}][score][gte]=${i}`).join('&');
      expect(parse(conditions(3), { maxConditions: 3 }).errors).toEqual({});
      const over = parse(conditions(4), { maxConditions: 3 });
      expect(Object.keys(over.errors)).toEqual(['filter']);
      expect(over.errors.filter?.[0]).toMatch(/\b3\b/);
      const operators = parse('filter[score][gte]=1&filter[score][lte]=2&filter[score][neq]=3', {
        maxConditions: 2,
      });
      expect(operators.errors.filter?.[0]).toMatch(/\b2\b/);
    });

    it('refuses too long a query string before parsing it', () => {
      const { errors, request } = parse(`filter[name]=${'a'.repeat(100)}`, { maxQueryLength: 50 });
      expect(Object.keys(errors)).toEqual(['query']);
      expect(errors.query?.[0]).toMatch(/\b50\b/);
      expect(request.filter).toEqual({ fields: [], groups: [] });
    });

    it('refuses more than 1000 parameters', () => {
      const { errors } = parse(Array.from({ length: 1001 }, (_, i) => `a${i}=1`).join('&'), {
        maxQueryLength: 100_000,
      });
      expect(Object.keys(errors)).toEqual(['query']);
      expect(errors.query?.[0]).toMatch(/\b1000\b/);
    });

    it('refuses a bracket list longer than the grammar allows', () => {
      const list = Array.from({ length: 101 }, (_, i) => `filter[score][in][]=${i}`).join('&');
      const { errors } = parse(list);
      expect(Object.keys(errors)).toEqual(['filter']);
      expect(errors.filter?.[0]).toMatch(/\b100\b/);
    });
  });

  describe('other parameters', () => {
    it('keeps scalar parameters and the raw query', () => {
      const raw = 'filter[status]=active&page=2&per_page=3&sort=-score';
      const { request, errors } = parse(raw);
      expect(errors).toEqual({});
      expect(request.params).toEqual({ page: '2', per_page: '3', sort: '-score' });
      expect(request.rawQuery).toBe(raw);
    });

    it('names unknown parameters and parameters given twice', () => {
      const { errors } = parse('foo=1&Filter[x]=1&page=1&page=2&pagination[]=cursor');
      expect(Object.keys(errors).sort()).toEqual(['Filter', 'foo', 'page', 'pagination']);
    });

    it('does not let __proto__ reach anything', () => {
      const { request, errors } = parse(
        '__proto__[x]=1&filter[__proto__][eq]=1&filter[constructor][prototype][x]=1',
      );
      expect(({} as Record<string, unknown>).x).toBeUndefined();
      expect(Object.keys(errors)).not.toContain('filter');
      expect(request.filter.groups).toEqual([]);
    });
  });
});
