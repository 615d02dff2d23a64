import { beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../examples/demo/resources.js';
import { defineEndpoint, type ServiceConfig } from '../src/resource/policy.js';
import type { ResourceDefinition } from '../src/resource/types.js';
import { buildService } from '../src/server/standalone.js';
import type { DialectName } from '../src/sql/dialect.js';
import { dialects } from './support/databases.js';
import { insertUsers, type UserRow, users } from './support/fixture.js';
import { idsOf, pagesBothWays, pathOf, walkPages } from './support/pages.js';
import { type TestService, useService } from './support/service.js';
import { counter } from './support/statements.js';

type Rec = Record<string, unknown>;

const endpoint = defineEndpoint({
  resource: 'users',
  path: 'sorted',
  allowedFilters: ['status', 'trashed'],
  allowedSorts: ['id', 'created_at', 'birthday', 'status', 'score'],
  allowAll: 'unlimited',
  perPage: { default: 7, max: 100 },
});

/**
 * Users beyond the fixture with what makes ordering hard: few distinct `created_at` values (ties broken
 * by the primary key), a third of the birthdays NULL, three statuses, some soft-deleted.
 */
const instants = ['2024-01-15T10:00:00.000Z', '2024-02-01T00:00:00.000Z', '2024-03-10T12:30:00.000Z'];
const statuses: UserRow['status'][] = ['active', 'inactive', 'banned'];
function made(id: number): UserRow {
  return {
    id,
    name: `Sorted ${id}`,
    email: `sorted${id}@example.net`,
    status: statuses[id % 3] as UserRow['status'],
    score: id % 7,
    balance: 0,
    is_admin: false,
    birthday: id % 3 === 0 ? null : `19${70 + (id % 5)}-0${1 + (id % 4)}-15`,
    settings: null,
    department_id: null,
    created_at: instants[id % instants.length] as string,
    deleted_at: id % 11 === 0 ? '2025-01-01T00:00:00.000Z' : null,
  };
}
const extra = Array.from({ length: 36 }, (_, i) => made(100 + i));

/** The service's order, computed independently: NULL is the smallest value; the primary key last, descending. */
function expectedOrder(rows: readonly UserRow[], sort: string): number[] {
  const terms = sort
    .split(',')
    .filter(Boolean)
    .map((part) => ({
      column: part.replace(/^-/, '') as keyof UserRow,
      sign: part.startsWith('-') ? -1 : 1,
    }));
  if (!terms.some((term) => term.column === 'id')) terms.push({ column: 'id', sign: -1 });
  const compare = (a: UserRow, b: UserRow): number => {
    for (const { column, sign } of terms) {
      const x = a[column] as string | number | null;
      const y = b[column] as string | number | null;
      if (x === y) continue;
      if (x === null) return -sign;
      if (y === null) return sign;
      return (x < y ? -1 : 1) * sign;
    }
    return 0;
  };
  return rows
    .filter((row) => row.deleted_at === null)
    .sort(compare)
    .map((row) => row.id);
}

/** NOT NULL, nullable (with NULLs present), mixed directions, and each before the other. */
const sorts = [
  '-created_at',
  'created_at',
  'birthday',
  '-birthday',
  'status,-created_at',
  '-status,birthday',
  'birthday,-created_at',
  '-birthday,status',
  '-score,created_at',
  'id,-birthday',
  '-birthday,-created_at',
];

/**
 * The SQL of a cursor's second page for `sort`, lower case, without the soft-delete condition: what
 * remains of `is null` and `nulls` is the keyset's and the ORDER BY's.
 */
async function secondPageSql(svc: TestService, sort: string, config: Partial<ServiceConfig> = {}) {
  const first = await svc.get(`/api/sorted?pagination=cursor&per_page=3&sort=${sort}`);
  expect(first.status).toBe(200);
  const count = counter(svc.conn);
  const app = await buildService({
    config: { resources, endpoints: [endpoint], ...config },
    connection: count.connection,
  });
  const res = await app.inject({ url: pathOf(first.body.next_page_url) });
  await app.close();
  expect(res.statusCode, res.body).toBe(200);
  return count.sql
    .join('\n')
    .toLowerCase()
    .replace(new RegExp(`${quoted('deleted_at')} is null`, 'g'), '');
}

/**
 * How each engine writes a cursor's value in the keyset terms (`created_at <= ?`): SQLite's as `+?`,
 * which its planner does not read (docs/performance.md, Prepared shapes).
 */
const placeholder = (dialect: DialectName) =>
  dialect === 'postgres' ? '\\$\\d+' : dialect === 'sqlite' ? '\\+\\?' : '\\?';
const quoted = (column: string) => `["\`]t0["\`]\\.["\`]${column}["\`]`;

/** The demo's resources with `users` declared differently (nullability), the database left as it is. */
function declaring(columns: ResourceDefinition['columns']): ResourceDefinition[] {
  return resources.map((resource) =>
    resource.name === 'users' ? { ...resource, columns: { ...resource.columns, ...columns } } : resource,
  );
}

for (const dialect of dialects) {
  describe(`sort and keyset pages over NOT NULL, nullable and mixed-direction columns on ${dialect}`, () => {
    const svc = useService(dialect, 'sortkeyset', { endpoints: [endpoint] });
    const all = [...users, ...extra];
    // In the set-up, so that any one test runs alone (registered after useService's, so it runs after it).
    beforeAll(() => insertUsers(svc.conn, extra));

    it('has the edge cases it means to test', async () => {
      const visible = all.filter((user) => user.deleted_at === null);
      expect(visible.filter((user) => user.birthday === null).length).toBeGreaterThan(5);
      expect(new Set(visible.map((user) => user.created_at)).size).toBeLessThan(visible.length - 10);
    });

    it('answers the same rows in the same order in every pagination mode', async () => {
      for (const sort of sorts) {
        const expected = expectedOrder(all, sort);
        const lengthAware = await walkPages(svc, `/api/sorted?sort=${sort}`);
        expect(lengthAware, `length-aware ${sort}`).toEqual(expected);
        const simple = await walkPages(svc, `/api/sorted?pagination=simple&sort=${sort}`);
        expect(simple, `simple ${sort}`).toEqual(expected);
        const cursor = await walkPages(svc, `/api/sorted?pagination=cursor&per_page=3&sort=${sort}`);
        expect(cursor, `cursor ${sort}`).toEqual(expected);
        const everything = await svc.get(`/api/sorted?all=true&sort=${sort}`);
        expect(idsOf(everything.body), `all ${sort}`).toEqual(expected);
      }
    });

    it('walks back with prev cursors through the same pages', async () => {
      for (const sort of sorts) {
        const { forwards, backwards } = await pagesBothWays(
          svc,
          `/api/sorted?pagination=cursor&per_page=4&sort=${sort}`,
        );
        expect(backwards, sort).toEqual(forwards);
      }
    });

    it('emits the plain order and range for NOT NULL columns, NULL handling only for nullable ones', async () => {
      const p = placeholder(dialect);
      const createdAt = await secondPageSql(svc, '-created_at');
      expect(createdAt).not.toContain('nulls');
      expect(createdAt).not.toContain('is null');
      expect(createdAt).not.toContain('union');
      if (dialect === 'postgres')
        expect(createdAt).toMatch(/\("t0"\."created_at", "t0"\."id"\) < \(\$\d+, \$\d+\)/);
      else expect(createdAt).toMatch(new RegExp(`${quoted('created_at')} <= ${p}`));
      // The page's cut is the service's own value: on SQLite too, written so the planner does not read it.
      expect(createdAt).toMatch(new RegExp(`limit ${p}$`));

      // A nullable column descending: the values below the cursor's, then the NULLs, each an index range.
      const birthday = await secondPageSql(svc, '-birthday');
      expect(birthday).toContain('union all');
      expect(birthday).toMatch(new RegExp(`and ${quoted('birthday')} is null order by`));
      expect(birthday).toMatch(new RegExp(`and ${quoted('birthday')} < ${p} order by`));
      if (dialect === 'postgres') expect(birthday).toContain('desc nulls last');
      else expect(birthday).not.toContain('nulls');

      // Mixed directions: the rest of the cursor's status, then the statuses after it.
      const mixed = await secondPageSql(svc, 'status,-created_at');
      expect(mixed).toContain('union all');
      expect(mixed).toMatch(new RegExp(`${quoted('status')} = ${p}`));
      expect(mixed).toMatch(new RegExp(`${quoted('status')} > ${p}`));
      expect(mixed).not.toContain('nulls');
    });

    it('refuses a cursor that holds NULL for a NOT NULL column', async () => {
      const cursor = Buffer.from(JSON.stringify({ s: '-created_at,-id', d: 'next', v: [null, 5] })).toString(
        'base64url',
      );
      const res = await svc.get(`/api/sorted?pagination=cursor&sort=-created_at&cursor=${cursor}`);
      expect(res.status).toBe(422);
      expect(res.body.errors.cursor).toHaveLength(1);
    });

    it('believes the database over the declaration, and the declaration when told not to read the database', async () => {
      // Declared the wrong way round: birthday holds NULLs, created_at cannot.
      const wrong = declaring({
        birthday: { type: 'date', nullable: false },
        created_at: { type: 'datetime', nullable: true },
      });
      const birthday = await secondPageSql(svc, '-birthday', { resources: wrong });
      expect(birthday).toContain('is null');
      const createdAt = await secondPageSql(svc, '-created_at', { resources: wrong });
      expect(createdAt).not.toContain('is null');
      const app = await buildService({
        config: { resources: wrong, endpoints: [endpoint] },
        connection: svc.conn,
      });
      const walked: number[] = [];
      let url: string | null = '/api/sorted?pagination=cursor&per_page=3&sort=-birthday';
      while (url) {
        const body: { data: Rec[]; next_page_url: string | null } = (
          await app.inject({ url: pathOf(url) })
        ).json();
        walked.push(...idsOf(body));
        url = body.next_page_url;
      }
      await app.close();
      expect(walked).toEqual(expectedOrder(all, '-birthday'));

      // Without introspection, only the declarations count.
      const declared = await secondPageSql(svc, '-created_at', { resources: wrong, introspect: false });
      expect(declared).toContain('is null');
      const plain = await secondPageSql(svc, '-created_at', {
        resources: declaring({ created_at: { type: 'datetime', nullable: false } }),
        introspect: false,
      });
      expect(plain).not.toContain('is null');
    });

    it('returns every row that existed at the start exactly once, in order, while rows are inserted mid-walk', async () => {
      let nextId = 500;
      for (const sort of ['-created_at', 'birthday', '-birthday', 'status,-created_at', 'created_at']) {
        const before = [...all];
        const inserted: UserRow[] = [];
        const seen: number[] = [];
        let url: string | null = `/api/sorted?pagination=cursor&per_page=4&sort=${sort}`;
        let page = 0;
        while (url) {
          const res = await svc.get(pathOf(url));
          expect(res.status).toBe(200);
          seen.push(...idsOf(res.body));
          url = res.body.next_page_url;
          page += 1;
          if (page === 2 || page === 5) {
            // New rows on both sides of the cursor: ties with existing values, NULL birthdays,
            // the newest and the oldest instants.
            const rows = [0, 1, 2, 3, 4, 5].map((k) => ({
              ...made(nextId + k),
              created_at:
                k < 2
                  ? (instants[k] as string)
                  : k < 4
                    ? '2031-01-01T00:00:00.000Z'
                    : '2001-01-01T00:00:00.000Z',
            }));
            nextId += rows.length;
            await insertUsers(svc.conn, rows);
            inserted.push(...rows);
            all.push(...rows);
          }
        }
        for (const id of expectedOrder(before, sort)) expect(seen.filter((s) => s === id)).toHaveLength(1);
        expect(new Set(seen).size, sort).toBe(seen.length);
        // Whatever was seen is in the order of the final data (inserted rows included).
        const order = expectedOrder(all, sort);
        expect(seen, sort).toEqual(order.filter((id) => seen.includes(id)));
        expect(inserted.length).toBeGreaterThan(0);
      }
    });
  });
}
