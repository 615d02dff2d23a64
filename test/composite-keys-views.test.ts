import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors/configuration-error.js';
import { defineEndpoint, defineResource, type EndpointPolicy } from '../src/resource/policy.js';
import { belongsTo, belongsToMany, hasMany } from '../src/resource/relations.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';

/**
 * What real schemas hold beyond one id per table: a link table keyed by its two foreign keys with
 * columns of its own (Sakila's film_actor), served as a resource and as the pivot of many-to-many
 * relations; and a reporting view, served read-only with the key it exposes.
 */

const films = [
  { id: 1, title: 'Academy Dinosaur' },
  { id: 2, title: 'Ace Goldfinger' },
  { id: 3, title: 'Adaptation Holes' },
];
const actors = [
  { id: 1, name: 'Penelope' },
  { id: 2, name: 'Nick' },
  { id: 3, name: 'Ed' },
];
/** Composite key (actor_id, film_id), with a role and a date of its own. */
const castings = [
  { actor_id: 1, film_id: 1, role: 'lead', billed: 1 },
  { actor_id: 1, film_id: 2, role: 'cameo', billed: 5 },
  { actor_id: 2, film_id: 1, role: 'villain', billed: 2 },
  { actor_id: 2, film_id: 3, role: 'lead', billed: 1 },
  { actor_id: 3, film_id: 1, role: 'extra', billed: 9 },
  { actor_id: 3, film_id: 2, role: 'lead', billed: 1 },
  { actor_id: 3, film_id: 3, role: 'cameo', billed: 4 },
];

const film = defineResource({
  name: 'films',
  table: 'film',
  columns: { id: 'integer', title: 'string' },
  relations: {
    actors: belongsToMany('actors', {
      pivot: 'film_actor',
      foreignPivotKey: 'film_id',
      relatedPivotKey: 'actor_id',
    }),
    castings: hasMany('castings', 'film_id'),
  },
});
const actor = defineResource({
  name: 'actors',
  table: 'actor',
  columns: { id: 'integer', name: 'string' },
  relations: {
    films: belongsToMany('films', {
      pivot: 'film_actor',
      foreignPivotKey: 'actor_id',
      relatedPivotKey: 'film_id',
    }),
  },
});
const casting = defineResource({
  name: 'castings',
  table: 'film_actor',
  primaryKey: ['actor_id', 'film_id'],
  columns: { actor_id: 'integer', film_id: 'integer', role: 'string', billed: 'integer' },
  relations: { actor: belongsTo('actors', 'actor_id'), film: belongsTo('films', 'film_id') },
});
/** A view: one row per film, its key the film's id. */
const filmStats = defineResource({
  name: 'film_stats',
  table: 'film_stats',
  columns: { id: 'integer', title: 'string', cast_size: 'integer' },
  relations: { castings: hasMany('castings', 'film_id') },
});

const endpoints: EndpointPolicy[] = [
  defineEndpoint({ resource: 'films', allowedIncludes: ['actors', 'castings'], allowedCounts: ['actors'] }),
  defineEndpoint({ resource: 'actors', allowedIncludes: ['films'], allowedFilters: ['films.title'] }),
  defineEndpoint({
    resource: 'castings',
    allowedFilters: ['role', 'actor_id', 'film.title'],
    allowedSorts: ['billed', 'actor_id', 'film_id'],
    allowedIncludes: ['actor', 'film'],
    schema: {
      table: { columns: [{ key: 'actor_id' }, { key: 'film_id' }, { key: 'role' }] },
      form: { inputs: [{ name: 'role', type: 'text' }] },
    },
  }),
  defineEndpoint({
    resource: 'film_stats',
    allowedSorts: ['cast_size'],
    allowedFilters: ['cast_size'],
    allowedIncludes: ['castings'],
  }),
];

for (const dialect of dialects) {
  describe(`composite keys and views on ${dialect}`, () => {
    let conn: Connection;
    let app: Awaited<ReturnType<typeof buildService>>;
    const name = `composite_${dialect}`;

    beforeAll(async () => {
      conn = await freshDatabase(dialect, name);
      const db = conn.db;
      await sql`create table film (id integer primary key, title varchar(100) not null)`.execute(db);
      await sql`create table actor (id integer primary key, name varchar(100) not null)`.execute(db);
      await sql`create table film_actor (
        actor_id integer not null references actor (id), film_id integer not null references film (id),
        role varchar(20) not null, billed integer not null, primary key (actor_id, film_id))`.execute(db);
      await sql`create view film_stats as
        select f.id, f.title, (select count(*) from film_actor fa where fa.film_id = f.id) as cast_size
        from film f`.execute(db);
      await db.insertInto('film').values(films).execute();
      await db.insertInto('actor').values(actors).execute();
      await db.insertInto('film_actor').values(castings).execute();
      app = await buildService({
        config: { resources: [film, actor, casting, filmStats], endpoints },
        connection: conn,
      });
    });
    afterAll(async () => {
      await app?.close();
      await conn?.db.destroy();
      await dropDatabase(dialect, name);
    });

    const json = async (url: string) => {
      const res = await app.inject({ url });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const key = (row: { actor_id: number; film_id: number }) => `${row.actor_id},${row.film_id}`;

    it('lists a composite-key table in a total order, ending with every key column', async () => {
      const body = await json('/api/castings?sort=billed&per_page=100');
      const expected = [...castings].sort(
        (a, b) => a.billed - b.billed || b.actor_id - a.actor_id || b.film_id - a.film_id,
      );
      expect(body.data.map(key)).toEqual(expected.map(key));
      expect(body.total).toBe(castings.length);
    });

    it('pages by cursor over both key columns without repeating or skipping a row', async () => {
      const seen: string[] = [];
      let url: string | null = '/api/castings?pagination=cursor&per_page=2&sort=actor_id';
      for (let page = 0; url && page < 10; page++) {
        const body = await json(url);
        seen.push(...body.data.map(key));
        url = body.next_page_url
          ? new URL(body.next_page_url, 'http://x').pathname + new URL(body.next_page_url, 'http://x').search
          : null;
      }
      const expected = [...castings].sort((a, b) => a.actor_id - b.actor_id || b.film_id - a.film_id);
      expect(seen).toEqual(expected.map(key));
    });

    it('filters it by its columns and through its relations, and includes both sides', async () => {
      const body = await json(
        '/api/castings?filter[role]=lead&filter[film.title][starts_with]=Ac&include=actor,film&per_page=100',
      );
      const titles = new Map(films.map((f) => [f.id, f.title]));
      const expected = castings.filter(
        (c) => c.role === 'lead' && (titles.get(c.film_id) ?? '').startsWith('Ac'),
      );
      expect(body.data.map(key).sort()).toEqual(expected.map(key).sort());
      expect(body.data.length).toBeGreaterThan(0);
      for (const row of body.data) {
        expect(row.actor.id).toBe(row.actor_id);
        expect(row.film.title).toBe(titles.get(row.film_id));
      }
    });

    it('serves it as the pivot of many-to-many relations, counted and filtered through', async () => {
      const body = await json('/api/films?include=actors&count=actors');
      expect(body.data.map((row: { id: number }) => row.id).sort()).toEqual(films.map((f) => f.id).sort());
      for (const row of body.data) {
        const cast = castings.filter((c) => c.film_id === row.id).map((c) => c.actor_id);
        expect(row.actors_count).toBe(cast.length);
        expect(row.actors.map((a: { id: number }) => a.id).sort()).toEqual(cast.sort());
      }
      const inFilm = await json('/api/actors?filter[films.title]=Adaptation Holes');
      expect(inFilm.data.map((a: { id: number }) => a.id).sort()).toEqual(
        castings
          .filter((c) => c.film_id === 3)
          .map((c) => c.actor_id)
          .sort(),
      );
    });

    it('reads one record at <path>/<value>,<value>; a key of the wrong form is a 404', async () => {
      const one = await json('/api/castings/2,3?include=film');
      expect(one).toMatchObject({ actor_id: 2, film_id: 3, role: 'lead', film: { id: 3 } });
      // The path segment is decoded first: an escaped comma is the same key.
      expect(await json('/api/castings/2%2C3?include=film')).toEqual(one);
      for (const id of ['2', '2,3,4', '2,x', '9,9', '2%2C']) {
        const res = await app.inject({ url: `/api/castings/${id}` });
        expect(res.statusCode, `${id}: ${res.body}`).toBe(404);
      }
    });

    it('does not write records of a composite key: no write route, and start-up refuses a write action', async () => {
      const patch = await app.inject({ method: 'PATCH', url: '/api/castings/2,3', payload: { role: 'x' } });
      expect(patch.statusCode).toBe(405);
      const schema = await json('/api/v1/castings/schema');
      expect(schema.form.readOnly).toBe(true);
      await expect(
        buildService({
          config: {
            resources: [film, actor, casting, filmStats],
            endpoints: [{ ...(endpoints[2] as EndpointPolicy), actions: ['list', 'read', 'update'] }],
          },
          connection: conn,
        }),
      ).rejects.toThrow(ConfigurationError);
    });

    it('serves a view read-only, with the key it exposes: sorted, filtered, read one, included from', async () => {
      const body = await json('/api/film_stats?sort=-cast_size&include=castings');
      const sizes = films.map((f) => ({
        id: f.id,
        cast_size: castings.filter((c) => c.film_id === f.id).length,
      }));
      expect(body.data.map((row: { id: number; cast_size: number }) => [row.id, row.cast_size])).toEqual(
        [...sizes].sort((a, b) => b.cast_size - a.cast_size || b.id - a.id).map((s) => [s.id, s.cast_size]),
      );
      expect(body.data).toHaveLength(films.length);
      for (const row of body.data) expect(row.castings).toHaveLength(row.cast_size);
      expect((await json('/api/film_stats?filter[cast_size][gte]=3')).data).toHaveLength(
        sizes.filter((s) => s.cast_size >= 3).length,
      );
      expect(await json('/api/film_stats/2')).toMatchObject({ id: 2, title: 'Ace Goldfinger', cast_size: 2 });
      const write = await app.inject({ method: 'DELETE', url: '/api/film_stats/2' });
      expect(write.statusCode).toBe(405);
    });
  });
}
