import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConfigPlan, init, type ResourcePlan } from '../src/init/index.js';
import { reactAdminDataProvider } from '../src/providers/react-admin.js';
import type { StandaloneConfig } from '../src/server/config.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import { createSample, type Sample } from './fixtures/init-samples.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';

/**
 * `init` on public-sample-like databases (Chinook in PascalCase, Sakila in snake_case), on the three
 * engines: the module as generated starts, and answers lists, includes of each relation kind, counts,
 * relation filters, search, label sorts, all=true, the schema index, and writes only when asked.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const generated = join(root, 'test', '.generated', `init-samples-${process.pid}`);
const importFrom = relative(generated, join(root, 'src', 'index.js'))
  .split('\\')
  .join('/');

beforeAll(() => mkdirSync(generated, { recursive: true }));
afterAll(() => {
  rmSync(generated, { recursive: true, force: true });
  try {
    rmSync(dirname(generated));
  } catch {}
});

async function load(name: string, source: string): Promise<StandaloneConfig> {
  const file = join(generated, `${name}.ts`);
  writeFileSync(file, source);
  return ((await import(pathToFileURL(file).href)) as { default: StandaloneConfig }).default;
}

function relationsOf(resource: ResourcePlan | undefined): Record<string, string> {
  const described: Record<string, string> = {};
  for (const relation of resource?.relations ?? [])
    described[relation.name] =
      relation.kind === 'belongsToMany'
        ? `belongsToMany ${relation.resource} via ${relation.pivot}(${relation.foreignPivotKey}, ${relation.relatedPivotKey})`
        : `${relation.kind} ${relation.resource} by ${relation.foreignKey}`;
  return described;
}
const resourceOf = (plan: ConfigPlan, name: string) =>
  plan.resources.find((resource) => resource.name === name);

type Row = Record<string, unknown>;
async function get(app: FastifyInstance, url: string): Promise<Row[]> {
  const response = await app.inject({ method: 'GET', url });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  const body = response.json() as Row[] | { data: Row[] };
  return Array.isArray(body) ? body : body.data;
}
const column = (rows: Row[], key: string) => rows.map((row) => row[key]);
async function selectRows(conn: Connection, query: string): Promise<Row[]> {
  return (await sql.raw(query).execute(conn.db)).rows as Row[];
}
/** One column of a query, as numbers or strings the way the service answers them. */
async function selectColumn(conn: Connection, query: string, key: string): Promise<unknown[]> {
  const rows = (await sql.raw(query).execute(conn.db)).rows as Row[];
  return rows.map((row) => (typeof row[key] === 'bigint' ? Number(row[key]) : row[key]));
}

/** Starts the sample's generated module (`writable` or not) on a fresh database; `check` runs against it. */
async function withSample(
  dialect: (typeof dialects)[number],
  sample: Sample,
  writable: boolean,
  check: (app: FastifyInstance, plan: ConfigPlan, conn: Connection) => Promise<void>,
): Promise<void> {
  const name = `init_${sample}${writable ? '_w' : ''}`;
  const conn = await freshDatabase(dialect, name);
  let app: FastifyInstance | undefined;
  try {
    await createSample(conn, sample);
    const { plan, source } = await init({
      connection: conn,
      out: false,
      importFrom,
      lineWidth: 110,
      writable,
    });
    const config = await load(`${sample}-${dialect}${writable ? '-writable' : ''}`, source);
    app = await buildService({ config, connection: conn });
    await check(app, plan, conn);
  } finally {
    await app?.close();
    await conn.db.destroy();
    await dropDatabase(dialect, name);
  }
}

for (const dialect of dialects)
  describe(`init on sample databases, ${dialect}`, () => {
    it('Chinook (PascalCase): one naming rule, and the endpoints answer as generated', async () => {
      await withSample(dialect, 'chinook', false, async (app, plan, conn) => {
        const q = (name: string) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
        expect(plan.resources.map((resource) => resource.name).sort()).toEqual(
          ['Album', 'Artist', 'Customer', 'Employee', 'Genre', 'Playlist', 'Track'].sort(),
        );
        expect(relationsOf(resourceOf(plan, 'Album'))).toEqual({
          artist: 'belongsTo Artist by ArtistId',
          tracks: 'hasMany Track by AlbumId',
        });
        expect(relationsOf(resourceOf(plan, 'Employee'))).toEqual({
          reportsTo: 'belongsTo Employee by ReportsTo',
          customers: 'hasMany Customer by SupportRepId',
          reportsToEmployees: 'hasMany Employee by ReportsTo',
        });
        expect(relationsOf(resourceOf(plan, 'Customer'))).toEqual({
          supportRep: 'belongsTo Employee by SupportRepId',
        });
        expect(relationsOf(resourceOf(plan, 'Track'))).toEqual({
          album: 'belongsTo Album by AlbumId',
          genre: 'belongsTo Genre by GenreId',
          playlists: 'belongsToMany Playlist via PlaylistTrack(TrackId, PlaylistId)',
        });
        expect(relationsOf(resourceOf(plan, 'Playlist'))).toEqual({
          tracks: 'belongsToMany Track via PlaylistTrack(PlaylistId, TrackId)',
        });
        expect(resourceOf(plan, 'Album')?.labelColumn).toBe('Title');
        expect(resourceOf(plan, 'Customer')?.labelColumn).toBe('LastName');
        expect(resourceOf(plan, 'Customer')?.titleColumns).toEqual(['FirstName', 'LastName']);
        expect(resourceOf(plan, 'Album')?.endpoint).toMatchObject({
          allowedFilters: [
            'AlbumId',
            'Title',
            'ArtistId',
            'artist.ArtistId',
            'artist.Name',
            'tracks.TrackId',
            'tracks.Name',
            // Two relations away, never straight back (tracks.album).
            'tracks.genre.GenreId',
            'tracks.genre.Name',
            'tracks.playlists.PlaylistId',
            'tracks.playlists.Name',
          ],
          allowedSorts: ['AlbumId', 'Title', 'ArtistId', 'artist.Name', 'tracks_count'],
          allowedIncludes: ['artist', 'tracks', 'tracks.genre', 'tracks.playlists'],
          allowedCounts: ['tracks'],
          allowedSearch: ['Title'],
          allowAll: 10_000,
          actions: ['list', 'read'],
        });

        // A list, as SQL gives it.
        expect(column(await get(app, '/api/Album'), 'AlbumId')).toEqual(
          await selectColumn(
            conn,
            `select ${q('AlbumId')} from ${q('Album')} order by ${q('AlbumId')} desc`,
            'AlbumId',
          ),
        );
        // belongsTo, hasMany and belongsToMany includes; a to-many count.
        const albums = await get(app, '/api/Album?include=artist,tracks&sort=AlbumId');
        expect(albums.map((album) => (album.artist as Row).Name)).toEqual([
          'AC/DC',
          'Accept',
          'Accept',
          'AC/DC',
        ]);
        expect(albums.map((album) => (album.tracks as Row[]).length)).toEqual([1, 1, 2, 1]);
        const playlists = await get(app, '/api/Playlist?include=tracks&count=tracks&sort=PlaylistId');
        expect(playlists.map((playlist) => (playlist.tracks as Row[]).map((track) => track.TrackId))).toEqual(
          [[1, 2, 3], [5]],
        );
        expect(column(playlists, 'tracks_count')).toEqual([3, 1]);
        // The self-reference both ways.
        const staff = await get(app, '/api/Employee?include=reportsTo,reportsToEmployees&sort=EmployeeId');
        expect(staff.map((employee) => (employee.reportsTo as Row | null)?.LastName ?? null)).toEqual([
          null,
          'Adams',
          'Edwards',
        ]);
        expect(staff.map((employee) => (employee.reportsToEmployees as Row[]).length)).toEqual([1, 1, 0]);
        // A relation filter on the related label, as SQL gives it.
        expect(
          column(await get(app, '/api/Album?filter[artist.Name]=AC/DC&sort=AlbumId'), 'AlbumId'),
        ).toEqual(
          await selectColumn(
            conn,
            `select ${q('AlbumId')} from ${q('Album')} where ${q('ArtistId')} in (select ${q('ArtistId')} from ${q('Artist')} where ${q('Name')} = 'AC/DC') order by ${q('AlbumId')}`,
            'AlbumId',
          ),
        );
        expect(column(await get(app, '/api/Customer?filter[supportRep.EmployeeId]=3'), 'CustomerId')).toEqual(
          [2, 1],
        );
        // search, a sort on the label column, all=true.
        expect(column(await get(app, '/api/Track?search=rock&sort=TrackId'), 'TrackId')).toEqual([1, 5]);
        expect(column(await get(app, '/api/Album?sort=Title'), 'Title')).toEqual([
          'Balls to the Wall',
          'For Those About To Rock',
          'Let There Be Rock',
          'Restless and Wild',
        ]);
        expect((await get(app, '/api/Track?all=true')).length).toBe(5);

        // The schema index lists every endpoint; a document is read-only without writes.
        const index = (await app.inject({ method: 'GET', url: '/api/v1/schema' })).json() as {
          resources: { resource: string }[];
        };
        expect(index.resources.map((entry) => entry.resource).sort()).toEqual(
          plan.resources.map((resource) => resource.name).sort(),
        );
        const document = (await app.inject({ method: 'GET', url: '/api/v1/Album/schema' })).json();
        expect(document.detail.title).toBe('Title');
        // Labels a person reads: the record's own key is its ID, a reference is named after what it refers to.
        expect(document.table.columns.map((entry: { label: string }) => entry.label)).toEqual([
          'ID',
          'Title',
          'Artist',
        ]);
        expect(document.table.title).toBe('Albums');
        // A person is titled by both names; a relation to one says so too.
        const customer = (await app.inject({ method: 'GET', url: '/api/v1/Customer/schema' })).json();
        expect([customer.detail.title, customer.detail.titleColumns]).toEqual([
          'FirstName',
          ['FirstName', 'LastName'],
        ]);
        expect(customer.detail.relations).toMatchObject([
          {
            key: 'SupportRepId',
            name: 'supportRep',
            title: 'FirstName',
            titleColumns: ['FirstName', 'LastName'],
          },
        ]);
        expect(document.form.readOnly).toBe(true);
        expect(document.table.columns.map((entry: { key: string }) => entry.key)).toEqual([
          'AlbumId',
          'Title',
          'ArtistId',
        ]);
        // Writes are closed: 405 (the actions are not served).
        const patch = await app.inject({ method: 'PATCH', url: '/api/Album/1', payload: { Title: 'x' } });
        expect(patch.statusCode, patch.body).toBe(405);
        const post = await app.inject({
          method: 'POST',
          url: '/api/Album',
          payload: { Title: 'x', ArtistId: 1 },
        });
        expect(post.statusCode, post.body).toBe(405);
        // The react-admin provider, given no idField, takes each resource's key from the schema index.
        const apiUrl = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api`;
        const provided = await reactAdminDataProvider({ apiUrl }).getList('Album', {
          pagination: { page: 1, perPage: 100 },
          sort: { field: 'AlbumId', order: 'ASC' },
          filter: {},
        });
        expect(provided.data.map((album) => album.id)).toEqual(provided.data.map((album) => album.AlbumId));
        expect(provided.data.length).toBeGreaterThan(0);
      });
    });

    it('Sakila (snake_case): pivots with payload, a view, a hasOne, and writes closed', async () => {
      await withSample(dialect, 'sakila', false, async (app, plan, conn) => {
        expect(plan.resources.map((resource) => resource.name).sort()).toEqual(
          [
            'actor',
            'actor_info',
            'category',
            'film',
            'film_actor',
            'film_category',
            'role_user',
            'roles',
            'user_profiles',
            'users',
          ].sort(),
        );
        expect(plan.skipped.map((skip) => skip.table).sort()).toEqual(['film_titles']);
        expect(plan.skipped.find((skip) => skip.table === 'film_titles')?.reason).toMatch(
          /^a view without a key to page by \(no column named id or film_title_id or film_id\): declare it by hand/,
        );
        // A pivot with columns of its own is a resource too (composite key, read-only), reached both ways.
        expect(relationsOf(resourceOf(plan, 'film'))).toEqual({
          filmActors: 'hasMany film_actor by film_id',
          filmCategories: 'hasMany film_category by film_id',
          actors: 'belongsToMany actor via film_actor(film_id, actor_id)',
          categories: 'belongsToMany category via film_category(film_id, category_id)',
        });
        expect(relationsOf(resourceOf(plan, 'actor'))).toEqual({
          filmActors: 'hasMany film_actor by actor_id',
          films: 'belongsToMany film via film_actor(actor_id, film_id)',
        });
        expect(relationsOf(resourceOf(plan, 'film_actor'))).toEqual({
          actor: 'belongsTo actor by actor_id',
          film: 'belongsTo film by film_id',
        });
        expect(relationsOf(resourceOf(plan, 'users'))).toEqual({
          userProfile: 'hasOne user_profiles by user_id',
          // Two keys of role_user point to users: each relation is named after its key.
          userRoleUsers: 'hasMany role_user by user_id',
          grantedByRoleUsers: 'hasMany role_user by granted_by',
          roles: 'belongsToMany roles via role_user(user_id, role_id)',
        });
        expect(resourceOf(plan, 'users')?.notes).toContain(
          'roles goes through role_user, a resource too: its granted_at, granted_by are answered there (and by including it).',
        );
        expect(resourceOf(plan, 'film_actor')).toMatchObject({ primaryKey: ['actor_id', 'film_id'] });
        expect(resourceOf(plan, 'film_actor')?.endpoint.actions).toEqual(['list', 'read']);
        // Its payload: listed in key order, read one at <actor_id>,<film_id>, included from both sides.
        expect(
          (await get(app, '/api/film_actor?sort=actor_id,film_id')).map((row) => [row.actor_id, row.film_id]),
        ).toEqual(
          (await selectRows(conn, 'select actor_id, film_id from film_actor order by actor_id, film_id')).map(
            (row) => [Number(row.actor_id), Number(row.film_id)],
          ),
        );
        const casting = await app.inject({ method: 'GET', url: '/api/film_actor/1,1?include=film' });
        expect(casting.statusCode, casting.body).toBe(200);
        expect(casting.json()).toMatchObject({ actor_id: 1, film_id: 1, film: { film_id: 1 } });
        expect(
          column(await get(app, '/api/actor?include=filmActors&sort=actor_id'), 'filmActors').map(
            (rows) => (rows as Row[]).length,
          ),
        ).toEqual(
          column(await get(app, '/api/actor?include=films&sort=actor_id'), 'films').map(
            (rows) => (rows as Row[]).length,
          ),
        );
        expect(resourceOf(plan, 'actor_info')).toMatchObject({ view: true, primaryKey: 'actor_id' });
        // Every column, indexed or not (the unindexed ones with their CREATE INDEX), and each count.
        expect(resourceOf(plan, 'actor')?.endpoint.allowedSorts).toEqual([
          'actor_id',
          'first_name',
          'last_name',
          'last_update',
          'filmActors_count',
          'films_count',
        ]);
        expect(resourceOf(plan, 'actor')?.endpoint.unindexedSorts).toEqual(['first_name', 'last_update']);

        expect(
          column(await get(app, '/api/actor?include=films&sort=actor_id'), 'films').map((films) =>
            (films as Row[]).map((film) => film.title),
          ),
        ).toEqual([['ACADEMY DINOSAUR', 'ACE GOLDFINGER'], ['ACADEMY DINOSAUR'], ['ADAPTATION HOLES']]);
        expect(
          column(await get(app, '/api/film?count=actors,categories&sort=film_id'), 'actors_count'),
        ).toEqual([2, 1, 1]);
        expect(
          column(await get(app, '/api/film?filter[categories.name]=Animation&sort=film_id'), 'film_id'),
        ).toEqual([2, 3]);
        const users = await get(app, '/api/users?include=userProfile,roles&sort=id');
        expect(users.map((user) => (user.userProfile as Row | null)?.bio ?? null)).toEqual(['Counts', null]);
        expect(users.map((user) => (user.roles as Row[]).map((role) => role.name))).toEqual([
          ['admin'],
          ['editor'],
        ]);
        expect(column(await get(app, '/api/actor?search=nick'), 'actor_id')).toEqual([2]);
        expect(column(await get(app, '/api/actor?sort=last_name'), 'last_name')).toEqual([
          'CHASE',
          'GUINESS',
          'WAHLBERG',
        ]);
        expect((await get(app, '/api/film?all=true')).length).toBe(3);
        // The view, read-only, as SQL gives it.
        expect(column(await get(app, '/api/actor_info?sort=actor_id'), 'film_count').map(Number)).toEqual(
          (await selectColumn(conn, 'select film_count from actor_info order by actor_id', 'film_count')).map(
            Number,
          ),
        );
        const one = await app.inject({ method: 'GET', url: '/api/actor_info/1' });
        expect(one.statusCode, one.body).toBe(200);
        expect(one.json()).toMatchObject({ actor_id: 1, first_name: 'PENELOPE' });
        const index = (await app.inject({ method: 'GET', url: '/api/v1/schema' })).json() as {
          resources: { resource: string }[];
        };
        expect(index.resources.map((entry) => entry.resource).sort()).toEqual(
          plan.resources.map((resource) => resource.name).sort(),
        );
        for (const [method, url] of [
          ['POST', '/api/category'],
          ['PATCH', '/api/category/1'],
          ['DELETE', '/api/category/1'],
          ['POST', '/api/actor_info'],
        ] as const) {
          const response = await app.inject({ method, url, payload: { name: 'Drama' } });
          expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(405);
        }
      });
    });

    it('init --writable: tables create, update and delete; views stay read-only', async () => {
      await withSample(dialect, 'sakila', true, async (app, plan) => {
        expect(resourceOf(plan, 'category')?.endpoint.actions).toEqual([
          'list',
          'read',
          'create',
          'update',
          'delete',
        ]);
        expect(resourceOf(plan, 'actor_info')?.endpoint.actions).toEqual(['list', 'read']);
        const document = (await app.inject({ method: 'GET', url: '/api/v1/users/schema' })).json();
        expect(document.form.readOnly).toBe(false);
        expect(document.form.inputs).toEqual([
          expect.objectContaining({ name: 'name', type: 'text', required: true, maxLength: 100 }),
          expect.objectContaining({ name: 'email', type: 'email', required: true }),
          // NOT NULL with a default: not required.
          expect.objectContaining({ name: 'active', type: 'switch', required: false }),
          // A many-to-many relation to a resource of one key: its set of related keys.
          expect.objectContaining({
            name: 'roles',
            type: 'references',
            references: expect.objectContaining({ relation: 'roles', resource: 'roles', key: 'id' }),
          }),
        ]);
        // The set replaced through the link table, whose own columns take their defaults.
        const linked = await app.inject({ method: 'PATCH', url: '/api/users/1', payload: { roles: [2, 1] } });
        expect(linked.statusCode, linked.body).toBe(200);
        expect((linked.json() as Row).roles).toEqual([1, 2]);
        const created = await app.inject({
          method: 'POST',
          url: '/api/category',
          payload: { name: 'Drama' },
        });
        expect(created.statusCode, created.body).toBe(201);
        const id = (created.json() as Row).category_id;
        const updated = await app.inject({
          method: 'PATCH',
          url: `/api/category/${id}`,
          payload: { name: 'Documentary' },
        });
        expect(updated.statusCode, updated.body).toBe(200);
        expect((updated.json() as Row).name).toBe('Documentary');
        const deleted = await app.inject({ method: 'DELETE', url: `/api/category/${id}` });
        expect(deleted.statusCode, deleted.body).toBe(204);
        const view = await app.inject({ method: 'POST', url: '/api/actor_info', payload: {} });
        expect(view.statusCode, view.body).toBe(405);
      });
    });
  });

/** Tags kept as a JSON array, as many schemas keep a list: init lets it be filtered by its members. */
const tickets: { id: number; tags: string[] | null }[] = [
  { id: 1, tags: ['bug', 'ui'] },
  { id: 2, tags: ['bug'] },
  { id: 3, tags: ['docs'] },
  { id: 4, tags: [] },
  { id: 5, tags: null },
];
for (const dialect of dialects)
  describe(`init on a JSON array column, ${dialect}`, () => {
    it('allows has_all and has_any on it, answered as the arrays hold them', async () => {
      const name = 'init_json_tags';
      const conn = await freshDatabase(dialect, name);
      let app: FastifyInstance | undefined;
      try {
        const type = { sqlite: 'text', postgres: 'jsonb', mysql: 'json' }[dialect];
        await sql
          .raw(`create table tickets (id integer not null primary key, tags ${type})`)
          .execute(conn.db);
        for (const ticket of tickets)
          await sql`insert into tickets (id, tags) values (${ticket.id}, ${ticket.tags === null ? null : JSON.stringify(ticket.tags)})`.execute(
            conn.db,
          );
        const { plan, source } = await init({ connection: conn, out: false, importFrom, lineWidth: 110 });
        expect(resourceOf(plan, 'tickets')?.endpoint.allowedFilters).toEqual(['id', 'tags', 'tags.*']);
        app = await buildService({ config: await load(`json-tags-${dialect}`, source), connection: conn });
        const ids = async (query: string) =>
          column(await get(app as FastifyInstance, `/api/tickets?${query}&sort=id`), 'id');
        const holding = (test: (tags: string[]) => boolean) =>
          tickets.filter((ticket) => ticket.tags !== null && test(ticket.tags)).map((ticket) => ticket.id);
        expect(await ids('filter[tags][has_any]=ui,docs')).toEqual(
          holding((tags) => tags.includes('ui') || tags.includes('docs')),
        );
        expect(await ids('filter[tags][has_all]=bug,ui')).toEqual(
          holding((tags) => tags.includes('bug') && tags.includes('ui')),
        );
        expect(await ids('filter[tags][has_all]=bug')).toEqual([1, 2]);
      } finally {
        await app?.close();
        await conn.db.destroy();
        await dropDatabase(dialect, name);
      }
    });
  });
