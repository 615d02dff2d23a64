import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { defineEndpoint } from '../src/resource/policy.js';
import { dialects } from './support/databases.js';
import { insertUsers, type UserRow } from './support/fixture.js';
import type { InjectResponse } from './support/hosts.js';
import { serviceTargets, targetName, useService } from './support/service.js';

/**
 * Exports: the same list answered as CSV or NDJSON (`format=csv`, `Accept: text/csv`…), every record
 * of the request under the endpoint's `allowAll`, streamed in keyset batches when unlimited.
 */

type Data = Record<string, unknown>;

const endpoints = [
  defineEndpoint({
    resource: 'users',
    allowedFilters: ['status', 'name'],
    allowedSorts: ['name', 'score'],
    allowedSearch: ['name', 'email'],
    allowedIncludes: ['department', 'roles', 'profile'],
    allowedCounts: ['posts'],
    allowAll: 'unlimited',
  }),
  defineEndpoint({ resource: 'users', path: 'users-capped', allowedFilters: ['status'], allowAll: 3 }),
  defineEndpoint({ resource: 'users', path: 'users-paged', allowedFilters: ['status'] }),
  // all=true bounded, exports streamed (what init writes); and exports without all=true.
  defineEndpoint({
    resource: 'users',
    path: 'users-json-capped',
    allowAll: 3,
    allowExport: 'unlimited',
    schema: { table: { columns: [{ key: 'name' }] } },
  }),
  defineEndpoint({ resource: 'users', path: 'users-export-only', allowExport: 'unlimited' }),
  defineEndpoint({
    resource: 'users',
    path: 'users-shaped',
    allowedFilters: ['status'],
    allowAll: 'unlimited',
    // Drops the email, changes the name, adds a key no column has.
    response: (user) => ({
      id: user.id,
      name: String(user.name).toUpperCase(),
      status: user.status,
      extra: 1,
    }),
  }),
];

/** Users whose text cells a spreadsheet would run, or that need quoting; one with a negative score. */
const edgeNames = [
  '=HYPERLINK("http://evil.example","click")',
  '+1+2',
  '-2+3',
  '@SUM(A1:A2)',
  '\tTabbed',
  '\rCarriage',
  'Quote "me", please',
  'Two\nlines',
  'Windows\r\nline',
  'Plain',
];
const edgeUsers: UserRow[] = edgeNames.map((name, i) => ({
  id: 100 + i,
  name,
  email: i === 0 ? '=cmd|"/c calc"!A1' : `edge${i}@example.com`,
  status: 'edge' as UserRow['status'],
  score: i === 2 ? -7 : i,
  balance: i === 3 ? -12.5 : 0,
  is_admin: i % 2 === 0,
  birthday: null,
  settings: i === 1 ? { formula: '=1+1' } : null,
  department_id: i % 3 === 0 ? null : 1 + (i % 3),
  created_at: `2025-02-0${1 + (i % 9)}T10:00:00.000Z`,
  deleted_at: null,
}));

/** More users than one stream batch (1000 rows): 2,500. */
const BULK = 2500;
const bulkUsers: UserRow[] = Array.from({ length: BULK }, (_, i) => ({
  id: 1000 + i,
  name: `Bulk ${String(i).padStart(4, '0')}`,
  email: `bulk${i}@example.com`,
  status: 'bulk' as UserRow['status'],
  score: i % 100,
  balance: 0,
  is_admin: false,
  birthday: null,
  settings: null,
  department_id: null,
  created_at: '2025-03-01T00:00:00.000Z',
  deleted_at: null,
}));

/**
 * The test's own CSV writer, from RFC 4180 and OWASP's rule: a text cell starting with = + - @ tab or
 * CR gets a leading '; a cell with a comma, quote, CR or LF is quoted, quotes doubled; NULL is empty.
 */
function cell(value: unknown, number = false): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (!number && typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
const csvOf = (rows: string[][]): string => rows.map((row) => `${row.join(',')}\r\n`).join('');

const userColumns = [
  'id',
  'name',
  'email',
  'status',
  'score',
  'balance',
  'is_admin',
  'birthday',
  'settings',
  'department_id',
  'created_at',
  'updated_at',
  'deleted_at',
];
const numeric = new Set(['id', 'score', 'balance', 'department_id', 'posts_count']);

for (const dialect of dialects)
  describe(`exports on ${dialect}`, () => {
    const service = useService(dialect, 'exports', { endpoints, context: undefined });
    beforeAll(async () => {
      await insertUsers(service.conn, edgeUsers);
      // In chunks: SQLite binds at most 32,766 parameters per statement.
      for (let i = 0; i < bulkUsers.length; i += 500)
        await insertUsers(service.conn, bulkUsers.slice(i, i + 500));
    });

    const get = (url: string, headers?: Record<string, string>) =>
      service.inject({ method: 'GET', url, ...(headers && { headers }) });
    const ok = async (url: string, headers?: Record<string, string>) => {
      const res = await get(url, headers);
      expect(res.statusCode, res.body).toBe(200);
      return res;
    };
    const records = async (url: string) => JSON.parse((await ok(url)).body) as Data[];
    const refused = async (url: string, headers?: Record<string, string>) => {
      const res = await get(url, headers);
      expect(res.statusCode, res.body).toBe(422);
      return JSON.parse(res.body).errors as Record<string, string[]>;
    };
    const ndjson = (res: InjectResponse) => {
      expect(res.body.endsWith('\n') || res.body === '').toBe(true);
      return res.body === '' ? [] : res.body.slice(0, -1).split('\n');
    };

    it('writes exactly the rows the database holds, as RFC 4180 CSV with formula cells defused', async () => {
      // The file is named by the UTC day of the request: the day before it or after it, which differ
      // only when the request spans midnight.
      const dayBefore = new Date().toISOString().slice(0, 10);
      const res = await ok('/api/users?format=csv&filter[status]=edge&fields[users]=name,email,status,score');
      const dayAfter = new Date().toISOString().slice(0, 10);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
      expect(res.headers['content-disposition']).toMatch(
        /^attachment; filename="users-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      const day = String(res.headers['content-disposition']).match(/users-(\d{4}-\d{2}-\d{2})\.csv/)?.[1];
      expect([dayBefore, dayAfter]).toContain(day);
      // Streamed (allowAll 'unlimited'): no ETag, whose digest would be known only after the last row.
      expect(res.headers.etag).toBeUndefined();
      expect(String(res.headers.vary)).toMatch(/\bAccept\b/);
      // The oracle: the same rows read by SQL, in the list's default order (key descending).
      const rows = await service.conn.db
        .selectFrom('users')
        .select(['id', 'name', 'email', 'status', 'score'])
        .where('status', '=', 'edge')
        .where('deleted_at', 'is', null)
        .orderBy('id', 'desc')
        .execute();
      expect(rows).toHaveLength(edgeUsers.length);
      const expected = csvOf([
        ['id', 'name', 'email', 'status', 'score'],
        ...rows.map((row) => [
          cell(Number(row.id), true),
          cell(row.name),
          cell(row.email),
          cell(row.status),
          cell(Number(row.score), true),
        ]),
      ]);
      expect(res.body).toBe(expected);
      // What those rules give, spelled out once.
      expect(res.body).toContain(`\r\n102,'-2+3,edge2@example.com,edge,-7\r\n`);
      expect(res.body).toContain(
        `\r\n100,"'=HYPERLINK(""http://evil.example"",""click"")","'=cmd|""/c calc""!A1",edge,0\r\n`,
      );
      expect(res.body).toContain(`\r\n104,'\tTabbed,`);
      expect(res.body).toContain(`\r\n105,"'\rCarriage",`);
      expect(res.body).toContain(`\r\n106,"Quote ""me"", please",`);
      expect(res.body).toContain(`\r\n107,"Two\nlines",`);
      expect(res.body).toContain(`\r\n108,"Windows\r\nline",`);
      // HEAD: the same headers, no body (the stream is not written).
      const head = await service.inject({ method: 'HEAD', url: '/api/users?format=csv&filter[status]=edge' });
      expect(head.statusCode).toBe(200);
      expect(head.headers['content-disposition']).toBe(res.headers['content-disposition']);
      expect(head.body).toBe('');
    });

    it('writes the header row even when no record matches', async () => {
      const res = await ok('/api/users?format=csv&filter[status]=nobody');
      expect(res.body).toBe(`${userColumns.join(',')}\r\n`);
      const some = await ok('/api/users?format=csv&filter[status]=nobody&fields[users]=email&count=posts');
      expect(some.body).toBe('id,email,posts_count\r\n');
      expect((await ok('/api/users?format=ndjson&filter[status]=nobody')).body).toBe('');
    });

    it('writes every visible column by its kind: numbers as they are, JSON as text, booleans, empty nulls', async () => {
      const json = await records('/api/users?all=true&filter[status]=edge');
      const res = await ok('/api/users?format=csv&filter[status]=edge');
      expect(res.body).toBe(
        csvOf([
          userColumns,
          ...json.map((record) => userColumns.map((name) => cell(record[name], numeric.has(name)))),
        ]),
      );
      // A negative decimal is a number too: never prefixed.
      expect(res.body).toMatch(/\r\n103,'@SUM\(A1:A2\),edge3@example\.com,edge,3,-12\.5,false,/);
      expect(res.body).toContain(',true,');
      // A JSON cell is its JSON text, quoted as CSV quotes any text: a spreadsheet shows it as text.
      expect(res.body).toContain('"{""formula"":""=1+1""}"');
    });

    it('flattens to-one includes into columns and writes to-many ones as a JSON cell', async () => {
      const query =
        'include=department,roles,profile&fields[users]=name&fields[department]=name,code&count=posts&sort=name&filter[status]=active';
      const json = await records(`/api/users?all=true&${query}`);
      const res = await ok(`/api/users?format=csv&${query}`);
      const profile = ['id', 'user_id', 'bio', 'website'];
      const header = [
        'id',
        'name',
        'posts_count',
        'department.id',
        'department.name',
        'department.code',
        'roles',
        ...profile.map((name) => `profile.${name}`),
      ];
      expect(res.body.split('\r\n')[0]).toBe(header.join(','));
      const expected = json.map((record) => {
        const department = record.department as Data | null;
        const profileOf = record.profile as Data | null;
        return [
          cell(record.id, true),
          cell(record.name),
          cell(record.posts_count, true),
          cell(department?.id, true),
          cell(department?.name),
          cell(department?.code),
          cell(JSON.stringify(record.roles)),
          ...profile.map((name) => cell(profileOf?.[name], name === 'id' || name === 'user_id')),
        ];
      });
      expect(res.body).toBe(csvOf([header, ...expected]));
      // Some users have no department, or no profile: their cells are empty, the columns stay.
      expect(json.some((record) => record.department === null)).toBe(true);
      expect(json.some((record) => record.profile === null)).toBe(true);
      expect(json.some((record) => (record.roles as Data[]).length > 1)).toBe(true);
    });

    it('answers NDJSON: one line per record, each the record the JSON list answers', async () => {
      for (const query of [
        'filter[status]=edge',
        'include=roles,department&count=posts&sort=-score',
        'fields[users]=name&search=ann',
      ]) {
        const json = await records(`/api/users?all=true&${query}`);
        const res = await ok(`/api/users?format=ndjson&${query}`);
        expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
        expect(res.headers['content-disposition']).toMatch(/filename="users-\d{4}-\d{2}-\d{2}\.ndjson"/);
        const lines = ndjson(res);
        expect(lines).toEqual(json.map((record) => JSON.stringify(record)));
        expect(lines.length).toBeGreaterThan(0);
      }
    });

    it('applies the response transformer: NDJSON answers its records, CSV reads its columns from them', async () => {
      const json = await records('/api/users-shaped?all=true&filter[status]=active');
      const lines = ndjson(await ok('/api/users-shaped?format=ndjson&filter[status]=active'));
      expect(lines.map((line) => JSON.parse(line))).toEqual(json);
      expect(json[0]).toHaveProperty('extra', 1);
      const csv = await ok('/api/users-shaped?format=csv&filter[status]=active&fields[users]=name,email');
      // The email the transformer drops is an empty cell; its `extra` has no column.
      expect(csv.body).toBe(
        csvOf([
          ['id', 'name', 'email'],
          ...json.map((record) => [cell(record.id, true), cell(record.name), '']),
        ]),
      );
    });

    it('takes filter, search, sort and fields as the list does', async () => {
      const query = 'search=ann&sort=-score&fields[users]=name,score';
      const json = await records(`/api/users?all=true&${query}`);
      expect(json.length).toBeGreaterThan(1);
      const res = await ok(`/api/users?format=csv&${query}`);
      expect(res.body).toBe(
        csvOf([
          ['id', 'name', 'score'],
          ...json.map((record) => [cell(record.id, true), cell(record.name), cell(record.score, true)]),
        ]),
      );
    });

    it('negotiates Accept with q-values; format= wins; an Accept naming no export keeps JSON', async () => {
      const csv = await ok('/api/users?filter[status]=edge', { accept: 'text/csv' });
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
      expect(csv.body).toBe((await ok('/api/users?format=csv&filter[status]=edge')).body);
      const lines = await ok('/api/users?filter[status]=edge', { accept: 'application/x-ndjson' });
      expect(lines.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      expect(ndjson(lines)).toHaveLength(edgeUsers.length);
      const preferred = await ok('/api/users?filter[status]=edge', {
        accept: 'application/json;q=0.5, text/csv',
      });
      expect(preferred.headers['content-type']).toMatch(/^text\/csv/);
      for (const accept of [
        'text/csv;q=0.5, application/json',
        'application/json, text/csv;q=0.9',
        '*/*',
        'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
        'text/*',
        'image/png',
        'text/csv;q=0',
      ]) {
        const res = await ok('/api/users?filter[status]=edge', { accept });
        expect(res.headers['content-type'], accept).toBe('application/json; charset=utf-8');
        expect(JSON.parse(res.body).total, accept).toBe(edgeUsers.length);
        expect(String(res.headers.vary), accept).toMatch(/\bAccept\b/);
      }
      // format= wins over Accept, both ways.
      const won = await ok('/api/users?format=ndjson&filter[status]=edge', { accept: 'text/csv' });
      expect(won.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      // An endpoint without allowAll offers JSON only: Accept cannot choose what it does not offer.
      const paged = await ok('/api/users-paged?filter[status]=edge', { accept: 'text/csv' });
      expect(JSON.parse(paged.body).total).toBe(edgeUsers.length);
      expect(String(paged.headers.vary)).toMatch(/\bAccept\b/);
    });

    it('refuses what an export cannot be, keyed by the parameter', async () => {
      expect(await refused('/api/users-paged?format=csv')).toEqual({
        format: [
          'Exports (format=csv) answer every record, as all=true, which is not enabled for this endpoint.',
        ],
      });
      const over = await refused('/api/users-capped?format=ndjson');
      expect(Object.keys(over)).toEqual(['format']);
      expect(over.format?.[0]).toMatch(/exceeds the maximum of 3 allowed for an export/);
      for (const param of ['page=2', 'per_page=15', 'cursor=abc', 'pagination=cursor']) {
        const key = param.slice(0, param.indexOf('='));
        expect(Object.keys(await refused(`/api/users?format=csv&${param}`)), param).toEqual([key]);
        // The same when Accept asks for the export.
        expect(Object.keys(await refused(`/api/users?${param}`, { accept: 'text/csv' })), param).toEqual([
          key,
        ]);
      }
      const unknown = await refused('/api/users?format=xlsx');
      expect(Object.keys(unknown)).toEqual(['format']);
      expect(unknown.format?.[0]).toMatch(/csv or ndjson/);
      expect(Object.keys(await refused('/api/users?format=csv&all=false'))).toEqual(['all']);
      // A record is not a list: format is refused there as any list-only parameter.
      expect(Object.keys(await refused('/api/users/1?format=csv'))).toEqual(['format']);
      // all=true beside it is fine, and under the cap a bounded export is read at once.
      const capped = await ok('/api/users-capped?format=csv&all=true&filter[status]=inactive');
      expect(capped.body.split('\r\n').length).toBeGreaterThan(1);
    });

    it('takes its own maximum from allowExport, apart from all=true', async () => {
      const total = (await records('/api/users?all=true')).length;
      expect(total).toBeGreaterThan(3);
      // all=true keeps its cap of 3; the export beside it answers every record.
      expect((await refused('/api/users-json-capped?all=true')).all?.[0]).toMatch(/exceeds the maximum of 3/);
      // (Counted by NDJSON lines: some edge users' CSV cells hold line breaks.)
      const csv = await ok('/api/users-json-capped?format=csv');
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.body.split('\r\n').length - 2).toBeGreaterThanOrEqual(total);
      expect(ndjson(await ok('/api/users-json-capped', { accept: 'application/x-ndjson' })).length).toBe(
        total,
      );
      // An export without all=true: the export answers, all=true is refused.
      expect(ndjson(await ok('/api/users-export-only?format=ndjson')).length).toBe(total);
      expect(Object.keys(await refused('/api/users-export-only?all=true'))).toEqual(['all']);
      const schema = JSON.parse((await ok('/api/v1/users-json-capped/schema')).body);
      expect([schema.table.exports, schema.table.exportMax]).toEqual([['csv', 'ndjson'], null]);
    });

    it('streams an export larger than one batch with every row once, in order', async () => {
      const oracle = (
        await service.conn.db
          .selectFrom('users')
          .select('id')
          .where('status', '=', 'bulk')
          .where('deleted_at', 'is', null)
          .orderBy('id', 'desc')
          .execute()
      ).map((row) => String(row.id));
      expect(oracle).toHaveLength(BULK);
      const csv = await ok('/api/users?format=csv&filter[status]=bulk&fields[users]=name');
      const rows = csv.body.split('\r\n');
      expect(rows[0]).toBe('id,name');
      expect(rows.at(-1)).toBe('');
      expect(rows.slice(1, -1).map((row) => row.split(',')[0])).toEqual(oracle);
      // Sorted by a column: the keyset continues past each batch's last name.
      const byName = await ok('/api/users?format=ndjson&filter[status]=bulk&fields[users]=name&sort=-name');
      const names = ndjson(byName).map((line) => (JSON.parse(line) as Data).name);
      expect(names).toHaveLength(BULK);
      expect(new Set(names).size).toBe(BULK);
      expect(names).toEqual([...names].sort().reverse());
      // Sorted by a column no field answers: the statement still reads it, to continue past each batch.
      const byScore = await ok('/api/users?format=ndjson&filter[status]=bulk&fields[users]=name&sort=-score');
      const records = ndjson(byScore).map((line) => JSON.parse(line) as Data);
      expect(Object.keys(records[0] as Data)).toEqual(['id', 'name']);
      const expected = [...bulkUsers]
        .sort((a, b) => b.score - a.score || b.id - a.id)
        .map((user) => String(user.id));
      expect(records.map((record) => String(record.id))).toEqual(expected);
    });

    it('takes the query from the body, the format from it or from Accept', async () => {
      const viaUrl = await ok('/api/users?format=csv&filter[status]=edge');
      const post = (payload: unknown, headers: Record<string, string> = {}) =>
        service.inject({
          method: 'POST',
          url: '/api/users/query',
          headers: { 'content-type': 'application/json', ...headers },
          payload,
        });
      const inBody = await post({ query: 'format=csv&filter[status]=edge' });
      expect(inBody.statusCode, inBody.body).toBe(200);
      expect(inBody.body).toBe(viaUrl.body);
      expect(inBody.headers['content-disposition']).toBe(viaUrl.headers['content-disposition']);
      const accepted = await post({ query: 'filter[status]=edge' }, { accept: 'text/csv' });
      expect(accepted.body).toBe(viaUrl.body);
      const wrong = await post({ query: 'format=pdf' });
      expect(wrong.statusCode).toBe(422);
      expect(Object.keys(JSON.parse(wrong.body).errors)).toEqual(['format']);
    });

    it('exports every record of an unfiltered list, soft-deleted ones left out', async () => {
      const counted = await sql<{
        n: number;
      }>`select count(*) as n from users where deleted_at is null`.execute(service.conn.db);
      const lines = ndjson(await ok('/api/users?format=ndjson&fields[users]=name'));
      expect(lines).toHaveLength(Number(counted.rows[0]?.n));
    });
  });

/** Every host writes the same export: the core's headers, the streamed body as it comes. */
for (const target of serviceTargets.filter(({ host }) => host !== 'standalone'))
  describe(`exports through ${targetName(target)}`, () => {
    const service = useService(
      target.dialect,
      'exports_hosts',
      { endpoints, context: undefined },
      target.host,
    );

    it('answers the same CSV and NDJSON, headers included, as the standalone server makes them', async () => {
      for (const [query, type] of [
        ['format=csv&include=department&count=posts&sort=name', 'text/csv; charset=utf-8; header=present'],
        ['format=ndjson&include=roles', 'application/x-ndjson; charset=utf-8'],
      ] as const) {
        const res = await service.inject({ method: 'GET', url: `/api/users?${query}` });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.headers['content-type']).toBe(type);
        expect(String(res.headers['content-disposition'])).toMatch(
          /^attachment; filename="users-\d{4}-\d{2}-\d{2}\./,
        );
        expect(String(res.headers.vary)).toMatch(/\bAccept\b/);
        const all = await service.inject({
          method: 'GET',
          url: `/api/users?${query.replace(/format=\w+/, 'all=true')}`,
        });
        const records = JSON.parse(all.body) as Data[];
        expect(records.length).toBeGreaterThan(1);
        if (query.startsWith('format=ndjson'))
          expect(res.body).toBe(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
        else
          expect(
            res.body
              .split('\r\n')
              .slice(1, -1)
              .map((row) => Number(row.split(',')[0])),
          ).toEqual(records.map((record) => record.id));
      }
    });
  });
