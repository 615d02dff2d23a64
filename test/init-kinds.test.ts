import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors/configuration-error.js';
import type { ConfigPlan } from '../src/init/index.js';
import { kinds } from '../src/kinds/index.js';
import type { CatalogEngine } from '../src/kinds/kind.js';
import { reactAdminDataProvider } from '../src/providers/react-admin.js';
import { refineDataProvider } from '../src/providers/refine.js';
import type { StandaloneConfig } from '../src/server/config.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import { createKindsSchema, gadgets, initModule, loans, owners, typeColumns } from './fixtures/init-kinds.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';

/** A fixture column's type as the catalog names it: `varchar(20)` → `varchar`, `int unsigned` → `int`. */
const baseType = (type: string) =>
  type
    .toLowerCase()
    .replace(/\(.*\)/, '')
    .replace(/ (unsigned|null)$/, '');

/**
 * Types src/init/kinds.ts maps before asking the kinds (`declaredFor` names the others): a width, a
 * sign, a precision or an enum's values decide them.
 */
const initDecides: Record<CatalogEngine, readonly string[]> = {
  postgres: ['int8', 'numeric', 'citext'],
  mysql: ['tinyint', 'int', 'bigint', 'decimal', 'numeric', 'enum', 'set'],
};

/**
 * `init` on a schema with uuid keys, enums, 64-bit values, times, bytes, engine-specific types, a link
 * table keyed by its pair with a column of its own, and a view: its module, as generated, answers
 * lists, includes, counts, search, the schema index and read-one by every kind of key.
 */
type Row = Record<string, unknown>;

for (const dialect of dialects)
  describe(`init on real column kinds and keys, ${dialect}`, () => {
    let conn: Connection;
    let app: FastifyInstance;
    let plan: ConfigPlan;
    let config: StandaloneConfig;
    let remove = () => {};
    const name = `init_kinds_${dialect}`;

    beforeAll(async () => {
      conn = await freshDatabase(dialect, name);
      await createKindsSchema(conn, dialect);
      const generated = await initModule(conn, `kinds-${dialect}`);
      plan = generated.plan;
      config = generated.config;
      remove = generated.remove;
      app = await buildService({ config: generated.config, connection: conn });
    });
    afterAll(async () => {
      await app?.close();
      await conn?.db.destroy();
      await dropDatabase(dialect, name);
      remove();
    });

    const get = async (url: string): Promise<Row[]> => {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      const body = response.json() as Row[] | { data: Row[] };
      return Array.isArray(body) ? body : body.data;
    };
    const resource = (name: string) => plan.resources.find((candidate) => candidate.name === name);
    const kindOf = (table: string, column: string) =>
      resource(table)?.columns.find((candidate) => candidate.name === column);

    it('declares each column by the kind its engine type holds', () => {
      expect(plan.resources.map((r) => r.name).sort()).toEqual([
        'gadget_names',
        'gadgets',
        'kind_types',
        'loans',
        'owners',
      ]);
      expect(kindOf('gadgets', 'id')?.type).toBe('uuid');
      expect(kindOf('gadgets', 'big')).toMatchObject({ type: 'integer', big: true });
      expect(kindOf('gadgets', 'raw')?.type).toBe('binary');
      if (dialect !== 'sqlite') {
        expect(kindOf('gadgets', 'mood')).toMatchObject({ type: 'enum', values: ['sad', 'ok', 'happy'] });
        expect(kindOf('gadgets', 'at_time')?.type).toBe('time');
        expect(kindOf('gadgets', 'ip')?.type).toBe('network');
        expect(kindOf('gadgets', 'name_length')).toMatchObject({ generated: true, required: false });
        expect(resource('gadgets')?.endpoint.schema?.form?.inputs.map((input) => input.name)).not.toContain(
          'name_length',
        );
      }
      if (dialect === 'postgres') {
        expect(kindOf('gadgets', 'span')?.type).toBe('interval');
        expect(kindOf('gadgets', 'price')?.type).toBe('money');
        expect(kindOf('gadgets', 'tags')?.type).toBe('array');
      }
      if (dialect === 'mysql')
        expect(kindOf('gadgets', 'flags')).toMatchObject({ type: 'set', values: ['a', 'b'] });
      expect(resource('loans')).toMatchObject({ primaryKey: ['gadget_id', 'owner_id'] });
    });

    if (dialect !== 'sqlite')
      it('maps every engine type the kinds name, each a column of kind_types', () => {
        const engine = dialect as CatalogEngine;
        const fixture = new Set(typeColumns[dialect].map((c) => baseType(c.sql)));
        const mapped = new Set([
          ...Object.values(kinds).flatMap((kind) => kind.declaredFor?.[engine] ?? []),
          ...initDecides[engine],
        ]);
        expect([...mapped].filter((type) => !fixture.has(type))).toEqual([]);
      });

    it('declares each column of kind_types by its type, and skips what it cannot serve', () => {
      const table = resource('kind_types');
      for (const column of typeColumns[dialect])
        if (column.kind === null)
          expect(
            table?.skippedColumns.map((skipped) => skipped.name),
            column.sql,
          ).toContain(column.name);
        else expect(kindOf('kind_types', column.name)?.type, column.sql).toBe(column.kind);
    });

    it('serves kind_types as generated: start-up verification accepts every type, and each value is answered', async () => {
      const [row] = await get('/api/kind_types');
      for (const column of typeColumns[dialect]) {
        if (column.kind === null) expect(row, column.sql).not.toHaveProperty(column.name);
        else if (column.answer !== undefined) expect(row?.[column.name], column.sql).toEqual(column.answer);
        else expect(row?.[column.name], column.sql).not.toBeNull();
      }
      const one = await app.inject({ method: 'GET', url: '/api/kind_types/1' });
      expect(one.statusCode, one.body).toBe(200);
      expect(one.json()).toEqual(row);
    });

    if (dialect === 'mysql')
      it('bounds a YEAR column to what it holds (1901 to 2155, and 0), in writes and filters', async () => {
        // The generated configuration, with kind_types writable through a number input on c_year.
        const endpoints = config.endpoints.map((endpoint) =>
          endpoint.resource === 'kind_types'
            ? {
                ...endpoint,
                allowedFilters: ['c_year'],
                actions: ['list' as const, 'read' as const, 'update' as const],
                access: { ...endpoint.access, update: () => true },
                schema: {
                  table: { columns: [{ key: 'c_year' }] },
                  form: { inputs: [{ name: 'c_year', type: 'number' as const }] },
                },
              }
            : endpoint,
        );
        const writable = await buildService({ config: { ...config, endpoints }, connection: conn });
        try {
          const patch = (value: unknown) =>
            writable.inject({
              method: 'PATCH',
              url: '/api/kind_types/1',
              headers: { 'content-type': 'application/json' },
              payload: JSON.stringify({ c_year: value }),
            });
          const stored = async () =>
            (await conn.db.selectFrom('kind_types').select('c_year').executeTakeFirst())?.c_year;
          for (const value of [1901, 2155, 0, 2024]) {
            const written = await patch(value);
            expect(written.statusCode, `${value}: ${written.body}`).toBe(200);
            expect(written.json().c_year).toBe(value);
            expect(await stored()).toBe(value);
          }
          // 5 would be stored as 2005, 99 as 1999; 1900 and 2156 are refused by the database.
          for (const value of [5, 99, 1900, 2156, -1, 1e6]) {
            const refused = await patch(value);
            expect(refused.statusCode, `${value}: ${refused.body}`).toBe(422);
            expect(refused.json().errors).toEqual({
              c_year: ['The c_year field must be a year between 1901 and 2155, or 0.'],
            });
          }
          expect(await stored()).toBe(2024);
          const filter = async (query: string) =>
            writable.inject({ method: 'GET', url: `/api/kind_types?${query}` });
          expect((await filter('filter[c_year]=2024')).json().data).toHaveLength(1);
          expect((await filter('filter[c_year][lt]=2155')).json().data).toHaveLength(1);
          // `= 5` would match 2005: refused, as a value the column cannot hold.
          const five = await filter('filter[c_year]=5');
          expect(five.statusCode).toBe(422);
          expect(five.json().errors['filter.c_year'][0]).toContain('a year between 1901 and 2155, or 0');
          const openapi = (await writable.inject({ method: 'GET', url: '/api/openapi.json' })).json();
          const input = JSON.stringify(openapi).includes(
            '"anyOf":[{"minimum":1901,"maximum":2155},{"const":0}]',
          );
          expect(input).toBe(true);
        } finally {
          await writable.close();
        }
      });

    if (dialect !== 'sqlite')
      it('serves a generated column read-only: answered, never a form input', async () => {
        const rows = await get('/api/gadgets?sort=name');
        expect(rows.map((row) => row.name_length)).toEqual(rows.map((row) => String(row.name).length));
        const openapi = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
        expect(openapi.components.schemas.GadgetsRecord.properties.name_length.readOnly).toBe(true);
        const endpoints = config.endpoints.map((endpoint) =>
          endpoint.resource === 'gadgets' && endpoint.schema
            ? {
                ...endpoint,
                schema: {
                  ...endpoint.schema,
                  form: { inputs: [{ name: 'name_length', type: 'number' as const }] },
                },
              }
            : endpoint,
        );
        await expect(buildService({ config: { ...config, endpoints }, connection: conn })).rejects.toThrow(
          ConfigurationError,
        );
      });

    it('answers lists, filters, search and label sorts as generated', async () => {
      const rows = await get('/api/gadgets?sort=name');
      expect(rows.map((row) => row.name)).toEqual(gadgets.map((g) => g.name).sort());
      // A 64-bit value past 2^53 − 1 in an integer column: the string of its digits, never rounded.
      expect(rows.find((row) => row.name === 'Abacus')?.big).toBe('9007199254740993');
      expect(rows.find((row) => row.name === 'Bellows')?.big).toBe(12);
      expect((await get('/api/gadgets?filter[mood]=happy')).map((row) => row.name)).toEqual(['Abacus']);
      expect((await get('/api/gadgets?search=comp')).map((row) => row.name)).toEqual(['Compass']);
      if (dialect !== 'sqlite') {
        const refused = await app.inject({ method: 'GET', url: '/api/gadgets?filter[mood]=XXX' });
        expect(refused.statusCode).toBe(422);
        expect(Object.keys(refused.json().errors)).toEqual(['filter.mood']);
      }
      const byOwner = await get('/api/gadgets?filter[owner.name]=Ada&sort=name');
      expect(byOwner.map((row) => row.name)).toEqual(['Abacus', 'Compass']);
    });

    it('includes and counts every relation one level deep, through the link table too', async () => {
      const endpoint = resource('owners')?.endpoint;
      const query = `include=${endpoint?.allowedIncludes.join(',')}&count=${endpoint?.allowedCounts.join(',')}&sort=id`;
      const rows = await get(`/api/owners?${query}`);
      expect(rows.map((row) => row.id)).toEqual(owners.map((o) => o.id));
      for (const row of rows) {
        const lent = loans.filter((loan) => loan.owner_id === row.id);
        const owned = gadgets.filter((g) => g.owner_id === row.id);
        // Every to-many relation of owners answers the rows SQL has, whatever init named it.
        for (const relation of resource('owners')?.relations ?? []) {
          const expected =
            relation.kind === 'belongsToMany' || relation.resource === 'loans' ? lent.length : owned.length;
          expect(row[`${relation.name}_count`], relation.name).toBe(expected);
          expect((row[relation.name] as Row[]).length, relation.name).toBe(expected);
        }
      }
    });

    it('reads one record by a uuid, by a composite key, and from a view; a malformed key is a 404', async () => {
      const [first] = gadgets;
      const one = await app.inject({ method: 'GET', url: `/api/gadgets/${first?.id}` });
      expect(one.statusCode, one.body).toBe(200);
      expect(one.json()).toMatchObject({ id: first?.id, name: first?.name });
      expect((await app.inject({ method: 'GET', url: '/api/gadgets/nope' })).statusCode).toBe(404);
      expect((await app.inject({ method: 'GET', url: '/api/loans/nope,1' })).statusCode).toBe(404);
      const loan = loans[0];
      const link = await app.inject({
        method: 'GET',
        url: `/api/loans/${loan?.gadget_id},${loan?.owner_id}`,
      });
      expect(link.statusCode, link.body).toBe(200);
      expect(link.json()).toMatchObject({ owner_id: loan?.owner_id, since: loan?.since });
      expect((await get('/api/gadget_names?sort=name')).map((row) => row.name)).toEqual(
        gadgets.map((g) => g.name).sort(),
      );
    });

    it('gives the react-admin and refine providers every record’s id with no option: a composite key’s joined', async () => {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      const apiUrl = `${address}/api`;
      const ra = reactAdminDataProvider({ apiUrl });
      const page = await ra.getList('loans', {
        pagination: { page: 1, perPage: 10 },
        sort: { field: 'owner_id', order: 'ASC' },
        filter: {},
      });
      const ids = loans.map((loan) => `${loan.gadget_id},${loan.owner_id}`);
      expect(page.data.map((record) => record.id).sort()).toEqual([...ids].sort());
      const one = await ra.getOne('loans', { id: ids[1] });
      expect(one.data).toMatchObject({ id: ids[1], owner_id: loans[1]?.owner_id });
      const many = await ra.getMany('loans', { ids: [ids[2], ids[0], `${gadgets[3]?.id},1`] });
      expect(many.data.map((record) => record.id)).toEqual([ids[2], ids[0]]);
      const owners = await ra.getMany('owners', { ids: [2, 1] });
      expect(owners.data.map((record) => record.id)).toEqual([2, 1]);
      const refine = refineDataProvider({ apiUrl });
      const listed = await refine.getList({
        resource: 'gadgets',
        pagination: { currentPage: 1, pageSize: 10 },
      });
      expect(listed.data.map((record) => record.id).sort()).toEqual(gadgets.map((g) => g.id).sort());
      const loan = await refine.getOne({ resource: 'loans', id: ids[0] as string });
      expect(loan.data.id).toBe(ids[0]);
    });

    it('lists every generated endpoint in the schema index, each with its document', async () => {
      const index = (await app.inject({ method: 'GET', url: '/api/v1/schema' })).json() as {
        resources: { resource: string }[];
      };
      expect(index.resources.map((entry) => entry.resource).sort()).toEqual(
        plan.resources.map((r) => r.name).sort(),
      );
      const document = await app.inject({ method: 'GET', url: '/api/v1/gadgets/schema' });
      expect(document.statusCode, document.body).toBe(200);
      const columns = document.json().table.columns as { key: string; type: string }[];
      if (dialect !== 'sqlite') expect(columns.find((c) => c.key === 'mood')?.type).toBe('badge');
      expect(
        (await app.inject({ method: 'PATCH', url: `/api/gadgets/${gadgets[0]?.id}`, payload: {} }))
          .statusCode,
      ).toBe(405);
    });
  });
