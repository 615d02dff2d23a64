import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors/configuration-error.js';
import { defineEndpoint, defineResource, type ServiceConfig } from '../src/resource/policy.js';
import { belongsTo } from '../src/resource/relations.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import type { DialectName, Statement } from '../src/sql/dialect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';
import { pathOf } from './support/pages.js';
import { recordInto } from './support/statements.js';

/**
 * Sorts and cursors over an enum column, through HTTP, held to each engine's own ORDER BY: a MariaDB
 * ENUM and a PostgreSQL enum sort by their values' declared positions, SQLite's text alphabetically, and
 * a cursor must continue in that same order. MariaDB compares an ENUM with a bound text alphabetically
 * ('NC-17' < 'R'), which made a cursor walk by rating skip NC-17 rows ascending and repeat them
 * descending; the pages must now be exactly what `ORDER BY rating, id DESC` gives, both ways, with ties,
 * NULLs and page boundaries between values; through a to-one relation too (`sort=film.rating`).
 */

const ratings = ['G', 'PG', 'PG-13', 'R', 'NC-17'] as const;
/** Declared in an order that is not alphabetical, on a text column: sorted and compared as text. */
const grades = ['low', 'mid', 'high'] as const;

interface Film {
  id: number;
  rating: string | null;
  year: number;
  grade: string;
}
const palette = ['NC-17', 'R', null, 'G', 'PG-13', 'NC-17', 'PG', 'R', 'NC-17'] as const;
const films: Film[] = Array.from({ length: 31 }, (_, i) => ({
  id: i + 1,
  rating: palette[(i * 5) % palette.length] ?? null,
  year: 2000 + (i % 4),
  grade: grades[(i * 2) % grades.length] as string,
}));
/** Rentals of films, some of none (their film.rating is NULL). */
const rentals = Array.from({ length: 26 }, (_, i) => ({
  id: i + 1,
  film_id: i % 7 === 3 ? null : 1 + ((i * 11) % films.length),
}));

const filmColumns = (values: readonly string[] = ratings) => ({
  id: 'integer' as const,
  title: 'string' as const,
  rating: { type: 'enum' as const, values: [...values] },
  year: 'integer' as const,
  grade: { type: 'enum' as const, values: [...grades] },
});
const resources = (values?: readonly string[]) => [
  defineResource({ name: 'films', table: 'film', columns: filmColumns(values) }),
  defineResource({
    name: 'rentals',
    table: 'rental',
    columns: { id: 'integer', film_id: 'integer' },
    relations: { film: belongsTo('films', 'film_id') },
  }),
];
const endpoints = [
  defineEndpoint({
    resource: 'films',
    allowedFilters: ['rating', 'grade'],
    allowedSorts: ['id', 'rating', 'year', 'grade'],
    perPage: { default: 3, max: 100 },
    aggregates: {
      allowedAggregates: ['count', 'min:rating', 'max:rating'],
      allowedGroupBy: ['rating', 'year'],
    },
  }),
  defineEndpoint({ resource: 'rentals', allowedSorts: ['film.rating'], perPage: { default: 3, max: 100 } }),
];

/** How each engine creates the tables: an ENUM, an enum type, text. */
async function createTables(dialect: DialectName, conn: Connection): Promise<void> {
  const list = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');
  const rating =
    dialect === 'mysql' ? `enum(${list(ratings)})` : dialect === 'postgres' ? 'mpaa_rating' : 'text';
  if (dialect === 'postgres')
    await sql.raw(`create type mpaa_rating as enum (${list(ratings)})`).execute(conn.db);
  await sql
    .raw(
      `create table film (id integer primary key, title varchar(50) not null, rating ${rating}, year integer not null, grade varchar(10) not null)`,
    )
    .execute(conn.db);
  await sql.raw('create index film_rating on film (rating, id)').execute(conn.db);
  await sql
    .raw('create table rental (id integer primary key, film_id integer references film (id))')
    .execute(conn.db);
  for (const film of films)
    await sql`insert into film values (${film.id}, ${`Film ${film.id}`}, ${film.rating}, ${film.year}, ${film.grade})`.execute(
      conn.db,
    );
  for (const rental of rentals)
    await sql`insert into rental values (${rental.id}, ${rental.film_id})`.execute(conn.db);
}

type App = Awaited<ReturnType<typeof buildService>>;

/** The ids of every page from `first` on by `next_page_url`, and of the same pages walked back. */
async function walkBothWays(app: App, first: string): Promise<{ forwards: number[]; backwards: number[] }> {
  const pages: number[][] = [];
  let url: string | null = first;
  let last: Record<string, unknown> = {};
  while (url) {
    const res = await app.inject({ url: pathOf(url) });
    expect(res.statusCode, res.body).toBe(200);
    last = res.json();
    pages.push((last.data as { id: number }[]).map((row) => row.id));
    url = last.next_page_url as string | null;
    expect(pages.length).toBeLessThan(100);
  }
  const back: number[][] = [pages[pages.length - 1] as number[]];
  let prev = last.prev_page_url as string | null;
  while (prev) {
    const res = await app.inject({ url: pathOf(prev) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    back.unshift((body.data as { id: number }[]).map((row) => row.id));
    prev = body.prev_page_url;
    expect(back.length).toBeLessThan(100);
  }
  return { forwards: pages.flat(), backwards: back.flat() };
}

/** `ORDER BY` as the service means it, in the engine's SQL: NULL smallest, the key last (descending). */
function orderBy(dialect: DialectName, sort: string, key = 'id'): string {
  const terms = sort.split(',').map((part) => {
    const desc = part.startsWith('-');
    const column = part.replace(/^-/, '');
    const nulls = dialect === 'postgres' ? (desc ? ' nulls last' : ' nulls first') : '';
    return `${column} ${desc ? 'desc' : 'asc'}${nulls}`;
  });
  if (!sort.split(',').some((part) => part.replace(/^-/, '') === key)) terms.push(`${key} desc`);
  return terms.join(', ');
}

const ids = async (conn: Connection, query: string): Promise<number[]> =>
  (await sql.raw<{ id: number }>(query).execute(conn.db)).rows.map((row) => Number(row.id));

/** The order each engine gives the ratings: the declared one (enums), or alphabetical (SQLite's text). */
const ratingOrder = (dialect: DialectName): readonly string[] =>
  dialect === 'sqlite' ? [...ratings].sort() : ratings;

/** The films' ids in the order the service must give for `sort`, computed without SQL. */
function expectedFilms(dialect: DialectName, sort: string): number[] {
  const rank = (value: string | null, order: readonly string[]) =>
    value === null ? -1 : order.indexOf(value);
  const terms = sort
    .split(',')
    .map((part) => ({ name: part.replace(/^-/, ''), sign: part[0] === '-' ? -1 : 1 }));
  const value = (film: Film, name: string): number =>
    name === 'rating'
      ? rank(film.rating, ratingOrder(dialect))
      : name === 'grade'
        ? rank(film.grade, [...grades].sort())
        : (film[name as 'year' | 'id'] as number);
  return [...films]
    .sort((a, b) => {
      for (const { name, sign } of terms) {
        const difference = value(a, name) - value(b, name);
        if (difference !== 0) return difference * sign;
      }
      return terms.some((term) => term.name === 'id') ? 0 : b.id - a.id;
    })
    .map((film) => film.id);
}

const filmSorts = ['rating', '-rating', 'rating,-year', '-rating,year', 'year,-rating', 'rating,id'];

for (const dialect of dialects) {
  describe(`an enum's order in sorts, cursors, filters and aggregates on ${dialect}`, () => {
    const name = 'enum_order';
    let conn: Connection;
    let app: App;
    const statements: Statement[] = [];
    const service = (config: Partial<ServiceConfig> = {}) =>
      buildService({ config: { resources: resources(), endpoints, ...config }, connection: conn });

    beforeAll(async () => {
      conn = await freshDatabase(dialect, name);
      await createTables(dialect, conn);
      // Every statement the service runs, to inspect the ones a request made.
      const recording = recordInto(conn, statements);
      app = await buildService({ config: { resources: resources(), endpoints }, connection: recording });
    });
    afterAll(async () => {
      await app?.close();
      await conn?.db.destroy();
      await dropDatabase(dialect, name);
    });

    it('has the edge cases it means to test: ties, NULLs, every value, ids not in rating order', () => {
      const held = films.map((film) => film.rating);
      for (const rating of ratings)
        expect(held.filter((value) => value === rating).length).toBeGreaterThan(1);
      expect(held.filter((value) => value === null).length).toBeGreaterThan(1);
      expect(rentals.filter((rental) => rental.film_id === null).length).toBeGreaterThan(1);
    });

    it('walks cursor pages of 2 and 3 in both directions exactly as ORDER BY gives the rows', async () => {
      for (const sort of filmSorts) {
        const bySql = await ids(conn, `select id from film order by ${orderBy(dialect, sort)}`);
        // The engine's order is its own: by the values' positions, or alphabetical on SQLite.
        expect(bySql, `${sort}: SQL's order`).toEqual(expectedFilms(dialect, sort));
        for (const perPage of [2, 3]) {
          const { forwards, backwards } = await walkBothWays(
            app,
            `/api/films?sort=${sort}&pagination=cursor&per_page=${perPage}`,
          );
          expect(forwards, `${sort}, ${perPage} a page, forwards`).toEqual(bySql);
          expect(backwards, `${sort}, ${perPage} a page, backwards`).toEqual(bySql);
        }
        const numbered = await app.inject({ url: `/api/films?sort=${sort}&per_page=100` });
        expect(
          numbered.json().data.map((row: { id: number }) => row.id),
          `${sort} numbered`,
        ).toEqual(bySql);
      }
    });

    it('walks a sort through a to-one relation’s enum (sort=film.rating) as ORDER BY over the join gives it', async () => {
      for (const sort of ['film.rating', '-film.rating']) {
        const desc = sort.startsWith('-');
        const nulls = dialect === 'postgres' ? (desc ? ' nulls last' : ' nulls first') : '';
        const bySql = await ids(
          conn,
          `select r.id from rental r left join film f on f.id = r.film_id order by f.rating ${desc ? 'desc' : 'asc'}${nulls}, r.id desc`,
        );
        for (const perPage of [2, 3]) {
          const { forwards, backwards } = await walkBothWays(
            app,
            `/api/rentals?sort=${sort}&pagination=cursor&per_page=${perPage}`,
          );
          expect(forwards, `${sort}, ${perPage} a page, forwards`).toEqual(bySql);
          expect(backwards, `${sort}, ${perPage} a page, backwards`).toEqual(bySql);
        }
      }
    });

    it('sorts and pages text declared enum as text: alphabetically, whatever the declared order', async () => {
      for (const sort of ['grade', '-grade,year']) {
        const bySql = await ids(conn, `select id from film order by ${orderBy(dialect, sort)}`);
        expect(bySql).toEqual(expectedFilms(dialect, sort));
        const { forwards, backwards } = await walkBothWays(
          app,
          `/api/films?sort=${sort}&pagination=cursor&per_page=2`,
        );
        expect(forwards, sort).toEqual(bySql);
        expect(backwards, sort).toEqual(bySql);
      }
    });

    it('has no order operators for enums: gt, lt and between are refused, equality works', async () => {
      for (const op of ['gt', 'gte', 'lt', 'lte', 'between']) {
        const value = op === 'between' ? 'PG,R' : 'R';
        const res = await app.inject({ url: `/api/films?filter[rating][${op}]=${value}` });
        expect(res.statusCode, op).toBe(422);
        expect(Object.keys(res.json().errors)).toEqual(['filter.rating']);
      }
      const res = await app.inject({ url: '/api/films?filter[rating][in]=R,NC-17&sort=id&per_page=100' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.map((row: { id: number }) => row.id)).toEqual(
        films.filter((film) => film.rating === 'R' || film.rating === 'NC-17').map((film) => film.id),
      );
    });

    it('orders aggregate groups by an enum as ORDER BY does, and takes min and max in that order', async () => {
      type Group = {
        group: Record<string, unknown>;
        count?: number;
        'min:rating'?: string;
        'max:rating'?: string;
      };
      const aggregate = async (query: string): Promise<Group[]> => {
        const res = await app.inject({ url: `/api/films/aggregate?${query}` });
        expect(res.statusCode, res.body).toBe(200);
        return res.json().data;
      };
      for (const sort of ['rating', '-rating']) {
        const desc = sort.startsWith('-');
        const nulls = dialect === 'postgres' ? (desc ? ' nulls last' : ' nulls first') : '';
        const bySql = await sql
          .raw<{ rating: string | null }>(
            `select rating from film group by rating order by rating ${desc ? 'desc' : 'asc'}${nulls}`,
          )
          .execute(conn.db);
        const groups = await aggregate(`metrics=count&group_by=rating&sort=${sort}`);
        expect(groups.map((group) => group.group.rating)).toEqual(bySql.rows.map((row) => row.rating));
      }
      // MIN and MAX in the order the engine sorts in: by position on MariaDB and PostgreSQL.
      const order = ratingOrder(dialect);
      const groups = await aggregate('metrics=min:rating,max:rating&group_by=year');
      expect(groups.length).toBe(4);
      for (const group of groups) {
        const at = films
          .filter((film) => film.year === group.group.year && film.rating !== null)
          .map((film) => order.indexOf(film.rating as string));
        expect(group['min:rating'], `min in ${group.group.year}`).toBe(order[Math.min(...at)]);
        expect(group['max:rating'], `max in ${group.group.year}`).toBe(order[Math.max(...at)]);
      }
      // `having` compares them in the same order.
      for (const [op, rating] of [
        ['gte', 'R'],
        ['lt', 'NC-17'],
        ['gt', 'PG'],
        ['lte', 'PG-13'],
      ] as const) {
        const having = await aggregate(
          `metrics=max:rating&group_by=year&having[max:rating][${op}]=${rating}`,
        );
        const wanted = groups.filter((group) => {
          const at = order.indexOf(group['max:rating'] as string);
          const bound = order.indexOf(rating);
          return op === 'gte'
            ? at >= bound
            : op === 'gt'
              ? at > bound
              : op === 'lt'
                ? at < bound
                : at <= bound;
        });
        expect(
          having.map((group) => group.group.year),
          `having max ${op} ${rating}`,
        ).toEqual(wanted.map((group) => group.group.year));
      }
    });

    if (dialect === 'mysql') {
      it('compares a MariaDB ENUM with a cursor as the values on its side, which the index reads as ranges', async () => {
        // Past the NULLs (3) and into the Gs: the cursor holds a rating.
        const first = await app.inject({ url: '/api/films?sort=rating&pagination=cursor&per_page=4' });
        statements.length = 0;
        const second = await app.inject({ url: pathOf(first.json().next_page_url) });
        expect(second.statusCode, second.body).toBe(200);
        const page = statements.find((statement) => /from `film`/.test(statement.sql)) as Statement;
        expect(page.sql).toMatch(/`t0`\.`rating` in \(\?, \?, \?, \?, \?\)/);
        expect(page.sql).not.toMatch(/`t0`\.`rating` [<>]/);
        const explained = await conn.run({ sql: `explain ${page.sql}`, parameters: page.parameters });
        const film = explained.find((row) => row.table === 't0') as Record<string, unknown>;
        expect(['range', 'ref']).toContain(film.type);
        expect(film.key).toBe('film_rating');
      });

      it('refuses at start-up declared values that are not the ENUM’s, all of them in its order', async () => {
        for (const values of [
          ['PG', 'G', 'PG-13', 'R', 'NC-17'],
          ['G', 'PG', 'R', 'NC-17'],
          [...ratings].sort(),
        ]) {
          const started = buildService({
            config: { resources: resources(values), endpoints },
            connection: conn,
          });
          await expect(started).rejects.toThrow(ConfigurationError);
          await expect(started).rejects.toThrow(
            `column "film.rating" is declared with values ${JSON.stringify(values).replace(/,/g, ', ')}, but the database's ENUM holds ["G", "PG", "PG-13", "R", "NC-17"]`,
          );
        }
      });

      it('takes an enum column for an ENUM without the catalog (introspect: false)', async () => {
        const bare = await service({ introspect: false });
        try {
          for (const sort of ['rating', '-rating,year']) {
            const bySql = await ids(conn, `select id from film order by ${orderBy(dialect, sort)}`);
            const { forwards, backwards } = await walkBothWays(
              bare,
              `/api/films?sort=${sort}&pagination=cursor&per_page=2`,
            );
            expect(forwards, sort).toEqual(bySql);
            expect(backwards, sort).toEqual(bySql);
          }
        } finally {
          await bare.close();
        }
      });
    } else {
      it('starts with declared values in another order than the type’s, and still pages in the engine’s order', async () => {
        const shuffled = await service({ resources: resources(['R', 'G', 'NC-17', 'PG', 'PG-13']) });
        try {
          const bySql = await ids(conn, `select id from film order by ${orderBy(dialect, '-rating')}`);
          const { forwards, backwards } = await walkBothWays(
            shuffled,
            '/api/films?sort=-rating&pagination=cursor&per_page=2',
          );
          expect(forwards).toEqual(bySql);
          expect(backwards).toEqual(bySql);
        } finally {
          await shuffled.close();
        }
      });

      it('refuses, with a 422, the cursor of a row whose value the declaration leaves out', async () => {
        const partial = await service({ resources: resources(['G', 'PG', 'PG-13', 'R']) });
        try {
          let url: string | null = '/api/films?sort=-rating&pagination=cursor&per_page=2';
          let status = 200;
          for (let page = 0; url && status === 200 && page < 40; page++) {
            const res = await partial.inject({ url: pathOf(url) });
            const body: { next_page_url: string | null; errors?: Record<string, string[]> } = res.json();
            status = res.statusCode;
            if (status === 200) url = body.next_page_url;
            else expect(Object.keys(body.errors ?? {})).toEqual(['cursor']);
          }
          expect(status).toBe(422);
        } finally {
          await partial.close();
        }
      });
    }
  });
}
