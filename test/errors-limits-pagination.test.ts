import { describe, expect, it } from 'vitest';
import { dialects } from './support/databases.js';
import { comments, posts, type UserRow, users } from './support/fixture.js';
import { byIdDesc, expectedUsers, ids, visibleUsers } from './support/oracle.js';
import { type TestService, useService } from './support/service.js';

const envelopeKeys = [
  'current_page',
  'data',
  'first_page_url',
  'from',
  'last_page',
  'last_page_url',
  'links',
  'next_page_url',
  'path',
  'per_page',
  'prev_page_url',
  'to',
  'total',
];

const isoDatetime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const isoDate = /^\d{4}-\d{2}-\d{2}$/;

/** A 422 with exactly these keys (in any order); returns the envelope. */
async function expect422(
  service: TestService,
  url: string,
  keys: string[],
): Promise<{ message: string; errors: Record<string, string[]> }> {
  const res = await service.get(url);
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(422);
  expect(Object.keys(res.body.errors).sort(), url).toEqual([...keys].sort());
  expect(typeof res.body.message).toBe('string');
  for (const key of keys) {
    expect(Array.isArray(res.body.errors[key])).toBe(true);
    expect(res.body.errors[key].length).toBeGreaterThan(0);
  }
  return res.body;
}

/** The order of `sort` in plain JavaScript: NULL is the smallest value; the primary key descending ends it. */
function sortedUsers(terms: [keyof UserRow, 'asc' | 'desc'][]): number[] {
  const compare = (a: unknown, b: unknown): number => {
    if (a === b) return 0;
    if (a === null) return -1;
    if (b === null) return 1;
    return (a as string | number) < (b as string | number) ? -1 : 1;
  };
  return [...visibleUsers]
    .sort((a, b) => {
      for (const [column, direction] of terms) {
        const order = compare(a[column], b[column]);
        if (order !== 0) return direction === 'asc' ? order : -order;
      }
      return b.id - a.id;
    })
    .map((u) => u.id);
}

const typedValueErrors: [query: string, key: string][] = [
  ['filter[score][gt]=abc', 'filter.score'],
  ['filter[score]=1.5', 'filter.score'],
  ['filter[score]=2147483648', 'filter.score'],
  ['filter[score]=-2147483649', 'filter.score'],
  ['filter[score]=99999999999999999999', 'filter.score'],
  ['filter[score][in]=1,x', 'filter.score'],
  ['filter[score][between]=1,x', 'filter.score'],
  ['filter[balance]=abc', 'filter.balance'],
  ['filter[balance]=1e5', 'filter.balance'],
  ['filter[balance][gt]=NaN', 'filter.balance'],
  ['filter[is_admin]=yes', 'filter.is_admin'],
  ['filter[is_admin][in]=true,maybe', 'filter.is_admin'],
  ['filter[birthday][date_eq]=2024-13-45', 'filter.birthday'],
  ['filter[birthday]=2023-02-29', 'filter.birthday'],
  ['filter[birthday][gt]=yesterday', 'filter.birthday'],
  ['filter[birthday][year]=99', 'filter.birthday'],
  ['filter[birthday][date_between]=2024-01-01,nope', 'filter.birthday'],
  ['filter[created_at][year]=20x4', 'filter.created_at'],
  ['filter[created_at][gt]=yesterday', 'filter.created_at'],
  ['filter[created_at]=2024-01-15T25:00:00Z', 'filter.created_at'],
  ['filter[created_at][date_eq]=2024-02-30', 'filter.created_at'],
  ['filter[birthday][is_null]=maybe', 'filter.birthday'],
  ['filter[name][is_empty]=yes', 'filter.name'],
  ['filter[department_id][is_not_null]=2', 'filter.department_id'],
];

const operatorErrors: [query: string, key: string][] = [
  ['filter[score][foo]=1', 'filter.score'],
  ['filter[score][EQ]=1', 'filter.score'],
  ['filter[score][contains]=1', 'filter.score'],
  ['filter[score][is_empty]=1', 'filter.score'],
  ['filter[score][year]=2024', 'filter.score'],
  ['filter[is_admin][gt]=true', 'filter.is_admin'],
  ['filter[is_admin][between]=0,1', 'filter.is_admin'],
  ['filter[birthday][contains]=19', 'filter.birthday'],
  ['filter[name][date_eq]=2024-01-01', 'filter.name'],
  ['filter[settings][eq]=x', 'filter.settings'],
  ['filter[score][gte][x]=1', 'filter.score'],
  ['filter[name][contains][]=a', 'filter.name'],
  ['filter[score]=1&filter[score]=2', 'filter.score'],
  ['filter[score][in][a]=1', 'filter.score'],
];

describe.each(dialects)('errors, limits, pagination and records on %s', (dialect) => {
  const service = useService(dialect, 'errors');

  describe('the length-aware envelope', () => {
    const query = 'filter[status][neq]=banned&per_page=3';
    const expected = expectedUsers((u) => u.status !== 'banned');

    it('has exactly the paginator fields', async () => {
      const res = await service.get('/api/users');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(envelopeKeys);
      expect(res.body.per_page).toBe(15);
      expect(res.body.current_page).toBe(1);
      expect(res.body.total).toBe(visibleUsers.length);
      expect(res.body.path).toMatch(/^https?:\/\/[^/]+\/api\/users$/);
    });

    it('describes page 1', async () => {
      const res = await service.get(`/api/users?${query}`);
      expect(res.status).toBe(200);
      const { path } = res.body;
      const url = (page: number) => `${path}?${query}&page=${page}`;
      const lastPage = Math.ceil(expected.length / 3);
      expect(lastPage).toBe(2);
      expect(ids(res)).toEqual(expected.slice(0, 3));
      expect(res.body).toMatchObject({
        current_page: 1,
        first_page_url: url(1),
        from: 1,
        last_page: lastPage,
        last_page_url: url(lastPage),
        next_page_url: url(2),
        per_page: 3,
        prev_page_url: null,
        to: 3,
        total: expected.length,
      });
      expect(res.body.links).toEqual([
        { url: null, label: '&laquo; Previous', active: false },
        { url: url(1), label: '1', active: true },
        { url: url(2), label: '2', active: false },
        { url: url(2), label: 'Next &raquo;', active: false },
      ]);
    });

    it('describes page 2, keeping the filters and replacing page (moved last)', async () => {
      const res = await service.get(`/api/users?page=2&${query}`);
      expect(res.status).toBe(200);
      const { path } = res.body;
      const url = (page: number) => `${path}?${query}&page=${page}`;
      expect(ids(res)).toEqual(expected.slice(3, 6));
      expect(res.body).toMatchObject({
        current_page: 2,
        first_page_url: url(1),
        from: 4,
        last_page: 2,
        last_page_url: url(2),
        next_page_url: null,
        per_page: 3,
        prev_page_url: url(1),
        to: expected.length,
        total: expected.length,
      });
      expect(res.body.links.map((link: { active: boolean }) => link.active)).toEqual([
        false,
        false,
        true,
        false,
      ]);
      expect(res.body.prev_page_url).toContain('filter[status][neq]=banned');
    });

    it('keeps the query string as the client wrote it', async () => {
      const raw = 'filter%5Bname%5D%5Bcontains%5D=a&per_page=2&page=1';
      const res = await service.get(`/api/users?${raw}`);
      expect(res.status).toBe(200);
      expect(res.body.next_page_url).toBe(
        `${res.body.path}?filter%5Bname%5D%5Bcontains%5D=a&per_page=2&page=2`,
      );
    });

    it('answers a page past the last with no data and the right total', async () => {
      const res = await service.get(`/api/users?${query}&page=10`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      expect(res.body).toMatchObject({
        current_page: 10,
        total: expected.length,
        last_page: 2,
        from: null,
        to: null,
        next_page_url: null,
      });
      const far = await service.get('/api/users?page=1000000000&per_page=100');
      expect(far.status).toBe(200);
      expect(far.body.data).toEqual([]);
      expect(far.body.total).toBe(visibleUsers.length);
    });

    it('an empty result has last_page 1 and null from/to', async () => {
      const res = await service.get('/api/users?filter[status]=nobody');
      expect(res.body).toMatchObject({
        data: [],
        total: 0,
        last_page: 1,
        from: null,
        to: null,
        current_page: 1,
      });
    });

    it('walking every page gives every record once, in order', async () => {
      const seen: number[] = [];
      for (let page = 1; page <= 4; page++) {
        const res = await service.get(`/api/users?per_page=2&page=${page}&filter[trashed]=true`);
        expect(res.body.total).toBe(users.length);
        seen.push(...ids(res));
      }
      expect(seen).toEqual(users.map((u) => u.id).sort(byIdDesc));
    });
  });

  describe('page and per_page', () => {
    it.each(['0', '-1', 'abc', '1.5', '1e2', '1000000001', ' 1'])(
      'page=%s is a 422 on page',
      async (value) => {
        await expect422(service, `/api/users?page=${encodeURIComponent(value)}`, ['page']);
      },
    );

    it.each(['0', '-1', 'abc', '101', '1.5', '1e1'])('per_page=%s is a 422 on per_page', async (value) => {
      await expect422(service, `/api/users?per_page=${encodeURIComponent(value)}`, ['per_page']);
    });

    it('accepts the bounds', async () => {
      const one = await service.get('/api/users?per_page=1');
      expect(one.status).toBe(200);
      expect(one.body.data).toHaveLength(1);
      expect(one.body.last_page).toBe(visibleUsers.length);
      const hundred = await service.get('/api/users?per_page=100&page=1');
      expect(hundred.status).toBe(200);
      expect(hundred.body.per_page).toBe(100);
    });

    it('refuses a parameter given twice', async () => {
      await expect422(service, '/api/users?page=1&page=2', ['page']);
      await expect422(service, '/api/users?per_page=1&per_page=2', ['per_page']);
    });
  });

  describe('all problems are reported at once', () => {
    it('three bad filters give three keys and "(and 2 more errors)"', async () => {
      const body = await expect422(
        service,
        '/api/users?filter[score][gt]=abc&filter[nope]=1&filter[birthday][date_eq]=2024-13-45',
        ['filter.score', 'filter.nope', 'filter.birthday'],
      );
      const first = Object.values(body.errors)[0]?.[0];
      expect(body.message).toBe(`${first} (and 2 more errors)`);
    });

    it('mixes filters, parameters and unknown parameters', async () => {
      const body = await expect422(
        service,
        '/api/users?foo=1&filter[score][gt]=abc&filter[or][0][nope]=1&sort=email&page=0',
        ['foo', 'filter.score', 'filter.nope', 'sort', 'page'],
      );
      expect(body.message).toBe(`${Object.values(body.errors)[0]?.[0]} (and 4 more errors)`);
    });

    it('counts messages, and says "error" for one more', async () => {
      const two = await expect422(service, '/api/users?filter[nope]=1&per_page=0', [
        'filter.nope',
        'per_page',
      ]);
      expect(two.message).toBe(`${Object.values(two.errors)[0]?.[0]} (and 1 more error)`);
      const sameKey = await expect422(service, '/api/users?filter[score][gt]=abc&filter[score][lt]=xyz', [
        'filter.score',
      ]);
      expect(sameKey.errors['filter.score']).toHaveLength(2);
      expect(sameKey.message).toBe(`${sameKey.errors['filter.score']?.[0]} (and 1 more error)`);
    });

    it('a single error is the message itself', async () => {
      const body = await expect422(service, '/api/users?filter[nope]=1', ['filter.nope']);
      expect(body.message).toBe(body.errors['filter.nope']?.[0]);
      expect(body.message).not.toContain('more error');
      expect(body.message).toContain('nope');
    });
  });

  describe('typed values', () => {
    it.each(typedValueErrors)('%s → 422 %s', async (query, key) => {
      const body = await expect422(service, `/api/users?${query}`, [key]);
      expect(body.errors[key]?.join(' ')).toContain(key.slice('filter.'.length));
    });

    it.each([
      ['filter[birthday][date_eq]=9999-12-31', (u: UserRow) => u.birthday === '9999-12-31'],
      ['filter[birthday][year]=9999', (u: UserRow) => (u.birthday ?? '').startsWith('9999')],
      ['filter[created_at][date_eq]=9999-12-31', (u: UserRow) => u.created_at.startsWith('9999-12-31')],
      ['filter[created_at][year]=9999', (u: UserRow) => u.created_at.startsWith('9999')],
      [
        'filter[created_at][date_between]=2024-01-01,9999-12-31',
        (u: UserRow) => u.created_at >= '2024-01-01',
      ],
      ['filter[birthday][date_between]=1000-01-01,9999-12-31', (u: UserRow) => u.birthday !== null],
      ['filter[created_at][lt]=1000-01-01T00:00:00Z', () => false],
      ['filter[score]=-2147483648', (u: UserRow) => u.score === -2147483648],
      ['filter[balance][lt]=-999999999999999', (u: UserRow) => u.balance < -999999999999999],
    ])('edge value %s is answered (no server error)', async (query, predicate) => {
      const res = await service.get(`/api/users?per_page=100&${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(ids(res)).toEqual(expectedUsers(predicate));
    });

    it.each([
      [
        'filter[birthday][year]=0001',
        'filter.birthday',
        (u: UserRow) => (u.birthday ?? '').startsWith('0001'),
      ],
      [
        'filter[birthday][date_between]=0001-01-01,9999-12-31',
        'filter.birthday',
        (u: UserRow) => u.birthday !== null,
      ],
      ['filter[created_at][lt]=0001-01-01T00:00:00Z', 'filter.created_at', () => false],
      ['filter[birthday][lt]=0999-12-31', 'filter.birthday', () => false],
    ])(
      'early year %s is answered with the right rows or a 422 on the filter',
      async (query, key, predicate) => {
        const res = await service.get(`/api/users?per_page=100&${query}`);
        if (res.status === 422) expect(Object.keys(res.body.errors)).toEqual([key]);
        else {
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(ids(res)).toEqual(expectedUsers(predicate));
        }
      },
    );
  });

  describe('operators', () => {
    it.each(operatorErrors)('%s → 422 %s', async (query, key) => {
      await expect422(service, `/api/users?${query}`, [key]);
    });

    it('an operator that does not apply lists the ones that do', async () => {
      const body = await expect422(service, '/api/users?filter[is_admin][gt]=true', ['filter.is_admin']);
      expect(body.errors['filter.is_admin']?.[0]).toContain('eq');
    });

    it.each([
      'filter[score][between]=10',
      'filter[score][not_between]=10',
      'filter[score][between][]=10',
      'filter[score][between][0]=10',
      'filter[balance][not_between]=1,2,3',
      'filter[score][between]=1,2,3',
    ])('%s needs two values', async (query) => {
      const body = await expect422(service, `/api/users?${query}`, [
        query
          .slice(0, query.indexOf(']') + 1)
          .replace('[', '.')
          .replace(']', ''),
      ]);
      expect(body.message).toContain('two values');
    });
  });

  describe('unknown parameters', () => {
    it.each([
      ['foo=1', 'foo'],
      ['Filter[status]=active', 'Filter'],
      ['filters[status]=active', 'filters'],
      ['per-page=3', 'per-page'],
      ['filter[status]=active&bogus=', 'bogus'],
    ])('%s → 422 %s', async (query, key) => {
      await expect422(service, `/api/users?${query}`, [key]);
    });

    it('refuses filter written without a name', async () => {
      await expect422(service, '/api/users?filter=active', ['filter']);
    });

    it('answers 404 for an unknown endpoint', async () => {
      const res = await service.get('/api/nope?filter[x]=1');
      expect(res.status).toBe(404);
      expect(res.body.message).toContain('/api/nope');
    });
  });

  describe('limits (defaults)', () => {
    it('maxQueryLength 8192', async () => {
      const prefix = 'filter[name][contains]=';
      const atLimit = await service.get(`/api/users?${prefix}${'a'.repeat(8192 - prefix.length)}`);
      expect(atLimit.status).toBe(422);
      expect(Object.keys(atLimit.body.errors)).not.toContain('query');
      const body = await expect422(service, `/api/users?${prefix}${'a'.repeat(8193 - prefix.length)}`, [
        'query',
      ]);
      expect(body.message).toMatch(/\b8192\b/);
    });

    it('maxGroupDepth 4', async () => {
      const nest = (levels: number) => `${'[or][0]'.repeat(levels)}`;
      const ok = await service.get(`/api/users?filter${nest(4)}[status]=banned`);
      expect(ok.status).toBe(200);
      expect(ids(ok)).toEqual(expectedUsers((u) => u.status === 'banned'));
      const body = await expect422(service, `/api/users?filter${nest(5)}[status]=banned`, ['filter']);
      expect(body.message).toMatch(/\b4\b/);
      const deeper = await expect422(service, `/api/users?filter${nest(12)}[status]=banned`, ['filter']);
      expect(deeper.message).toMatch(/\b4\b/);
    });

    it('maxConditions 50', async () => {
      const conditions = (n: number) =>
        Array.from({ length: n }, (_, i) => `filter[or][${i}][score][gte]=${i}`).join('&');
      const ok = await service.get(`/api/users?per_page=100&${conditions(50)}`);
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ids(ok)).toEqual(expectedUsers(() => true));
      const body = await expect422(service, `/api/users?${conditions(51)}`, ['filter']);
      expect(body.message).toMatch(/\b50\b/);
      const sameName = Array.from({ length: 51 }, (_, i) => `filter[or][${i}][score]=${i}`).join('&');
      expect((await service.get(`/api/users?${sameName}`)).status).toBe(422);
    });

    it('maxListLength 100', async () => {
      const list = (n: number) => Array.from({ length: n }, (_, i) => String(i)).join(',');
      const ok = await service.get(`/api/users?per_page=100&filter[score][in]=${list(100)}`);
      expect(ok.status).toBe(200);
      expect(ids(ok)).toEqual(expectedUsers((u) => u.score >= 0 && u.score < 100));
      const body = await expect422(service, `/api/users?filter[score][in]=${list(101)}`, ['filter.score']);
      expect(body.message).toMatch(/\b100\b/);
      const brackets = Array.from({ length: 101 }, (_, i) => `filter[score][in][]=${i}`).join('&');
      const res = await service.get(`/api/users?${brackets}`);
      expect(res.status).toBe(422);
      expect(res.body.message).toMatch(/\b100\b/);
    });

    it('maxValueLength 500', async () => {
      const ok = await service.get(`/api/users?filter[name][contains]=${'a'.repeat(500)}`);
      expect(ok.status).toBe(200);
      expect(ok.body.data).toEqual([]);
      const body = await expect422(service, `/api/users?filter[name][contains]=${'a'.repeat(501)}`, [
        'filter.name',
      ]);
      expect(body.message).toMatch(/\b500\b/);
    });

    it('1000 parameters', async () => {
      const body = await expect422(
        service,
        `/api/users?${Array.from({ length: 1001 }, () => 'x=').join('&')}`,
        ['query'],
      );
      expect(body.message).toMatch(/\b1000\b/);
    });
  });

  describe('sort', () => {
    it.each<[string, [keyof UserRow, 'asc' | 'desc'][]]>([
      [
        '-score,name',
        [
          ['score', 'desc'],
          ['name', 'asc'],
        ],
      ],
      ['score', [['score', 'asc']]],
      ['birthday', [['birthday', 'asc']]],
      ['-birthday', [['birthday', 'desc']]],
      [
        'birthday,-score',
        [
          ['birthday', 'asc'],
          ['score', 'desc'],
        ],
      ],
      ['created_at', [['created_at', 'asc']]],
      ['-created_at', [['created_at', 'desc']]],
      [',score', [['score', 'asc']]],
    ])('sort=%s', async (sort, terms) => {
      const res = await service.get(`/api/users?per_page=100&sort=${sort}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(ids(res)).toEqual(sortedUsers(terms));
    });

    it('sorts then pages', async () => {
      const res = await service.get('/api/users?sort=-score&per_page=2&page=2&filter[status][neq]=inactive');
      const expected = sortedUsers([['score', 'desc']]).filter(
        (id) => users.find((u) => u.id === id)?.status !== 'inactive',
      );
      expect(ids(res)).toEqual(expected.slice(2, 4));
      expect(res.body.next_page_url).toContain('sort=-score');
    });

    it.each(['email', '-nope', 'password_hash', 'score,email', 'settings', 'id', '-', 'roles.name'])(
      'sort=%s is a 422 on sort',
      async (sort) => {
        await expect422(service, `/api/users?sort=${sort}`, ['sort']);
      },
    );

    it('an endpoint without allowedSorts refuses every sort', async () => {
      await expect422(service, '/api/posts?sort=score', ['sort']);
    });
  });

  describe('records are normalized', () => {
    it('users: every column typed, no password_hash', async () => {
      const res = await service.get('/api/users?per_page=100&filter[trashed]=true');
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(users.length);
      for (const record of res.body.data) {
        const user = users.find((u) => u.id === record.id) as UserRow;
        expect(record).not.toHaveProperty('password_hash');
        expect(record).toMatchObject({
          id: user.id,
          name: user.name,
          email: user.email,
          status: user.status,
          score: user.score,
          balance: user.balance,
          is_admin: user.is_admin,
          birthday: user.birthday,
          settings: user.settings,
          department_id: user.department_id,
          created_at: user.created_at,
          deleted_at: user.deleted_at,
        });
        expect(typeof record.score).toBe('number');
        expect(typeof record.balance).toBe('number');
        expect(typeof record.is_admin).toBe('boolean');
        if (record.birthday !== null) expect(record.birthday).toMatch(isoDate);
        expect(record.created_at).toMatch(isoDatetime);
        if (record.deleted_at !== null) expect(record.deleted_at).toMatch(isoDatetime);
        if (record.updated_at !== undefined) expect(record.updated_at).toMatch(isoDatetime);
        if (record.settings !== null) expect(typeof record.settings).toBe('object');
      }
    });

    it('posts and comments', async () => {
      const postRes = await service.get('/api/posts?per_page=100&filter[status]=&filter[trashed]=true');
      expect(postRes.status).toBe(200);
      expect(postRes.body.data).toHaveLength(posts.length);
      for (const record of postRes.body.data) {
        const post = posts.find((p) => p.id === record.id) as (typeof posts)[number];
        expect(record).toMatchObject({
          id: post.id,
          user_id: post.user_id,
          title: post.title,
          status: post.status,
          score: post.score,
          meta: post.meta,
          published_at: post.published_at,
          created_at: post.created_at,
          deleted_at: post.deleted_at,
        });
      }
      const commentRes = await service.get('/api/comments?per_page=100');
      expect(commentRes.status).toBe(200);
      expect(commentRes.body.data).toHaveLength(comments.length);
      for (const record of commentRes.body.data) {
        const comment = comments.find((c) => c.id === record.id) as (typeof comments)[number];
        expect(record).toMatchObject(comment);
        expect(typeof record.approved).toBe('boolean');
      }
    });
  });
});

describe.each(dialects)('configured limits on %s', (dialect) => {
  const service = useService(dialect, 'limits', {
    limits: { maxQueryLength: 300, maxGroupDepth: 1, maxConditions: 3, maxListLength: 2, maxValueLength: 9 },
  });

  it('within the limits, answers', async () => {
    const res = await service.get(
      '/api/users?filter[or][0][score][in]=0,100&filter[or][1][name][contains]=anna',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(ids(res)).toEqual(
      expectedUsers((u) => [0, 100].includes(u.score) || u.name.toLowerCase().includes('anna')),
    );
  });

  it('maxQueryLength', async () => {
    const body = await expect422(service, `/api/users?filter[name]=a&x=${'b'.repeat(300)}`, ['query']);
    expect(body.message).toMatch(/\b300\b/);
  });

  it('maxGroupDepth', async () => {
    const body = await expect422(service, '/api/users?filter[or][0][or][0][status]=active', ['filter']);
    expect(body.message).toMatch(/\b1\b/);
  });

  it('maxConditions', async () => {
    const body = await expect422(
      service,
      '/api/users?filter[score][gte]=1&filter[score][lte]=90&filter[status]=active&filter[name][contains]=a',
      ['filter'],
    );
    expect(body.message).toMatch(/\b3\b/);
  });

  it('maxListLength', async () => {
    const body = await expect422(service, '/api/users?filter[score][in]=1,2,3', ['filter.score']);
    expect(body.message).toMatch(/\b2\b/);
  });

  it('maxValueLength', async () => {
    const ok = await service.get('/api/users?filter[name][contains]=abcdefghi');
    expect(ok.status).toBe(200);
    const body = await expect422(service, '/api/users?filter[name][contains]=abcdefghij', ['filter.name']);
    expect(body.message).toMatch(/\b9\b/);
  });
});
