import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors/configuration-error.js';
import { defineEndpoint, defineResource, type EndpointPolicy } from '../src/resource/policy.js';
import { belongsToMany } from '../src/resource/relations.js';
import type { RowScope } from '../src/resource/types.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';

/**
 * Setting a many-to-many relation in create and PATCH (a `references` input): a playlist's tracks,
 * through a link table with a column of its own (`note`, default 'new') and a rule of its own (track
 * 13 may not be linked), in a tenant's scope, with soft-deleted tracks.
 */

type Ctx = { tenant: number };
const tenantScope: RowScope<Ctx> = ({ eb, column, ctx }) => eb(column('tenant'), '=', ctx.tenant);

const tracks = defineResource<Ctx>({
  name: 'tracks',
  table: 'tracks',
  columns: {
    id: 'integer',
    title: 'string',
    tenant: 'integer',
    deleted_at: { type: 'datetime', nullable: true },
  },
  softDeleteColumn: 'deleted_at',
  scope: tenantScope,
});
const playlists = defineResource<Ctx>({
  name: 'playlists',
  table: 'playlists',
  columns: { id: 'integer', name: 'string', tenant: 'integer' },
  scope: tenantScope,
  relations: {
    tracks: belongsToMany('tracks', {
      pivot: 'playlist_track',
      foreignPivotKey: 'playlist_id',
      relatedPivotKey: 'track_id',
    }),
  },
});

const form = {
  inputs: [
    { name: 'name', type: 'text' as const, required: true },
    { name: 'tenant', type: 'number' as const },
    { name: 'tracks', type: 'references' as const, maxItems: 5 },
  ],
};
const playlistsEndpoint = defineEndpoint<Ctx>({
  resource: 'playlists',
  allowedIncludes: ['tracks'],
  actions: ['list', 'read', 'create', 'update', 'delete'],
  access: { create: () => true, update: () => true, delete: () => true },
  schema: { table: { columns: [{ key: 'id' }, { key: 'name' }] }, form },
});
/** The same records without the input: the relation's name is no field to write. */
const plainEndpoint = defineEndpoint<Ctx>({
  path: 'plain-playlists',
  resource: 'playlists',
  actions: ['read', 'update'],
  access: { update: () => true },
  schema: {
    table: { columns: [{ key: 'id' }, { key: 'name' }] },
    form: { inputs: [{ name: 'name', type: 'text' }] },
  },
});
const tracksEndpoint = defineEndpoint<Ctx>({
  resource: 'tracks',
  allowedFilters: ['title'],
  schema: { recordTitle: 'title', table: { columns: [{ key: 'id' }, { key: 'title' }] } },
});

const trackRows = [
  ...[1, 2, 3, 4, 5, 6, 13].map((id) => ({ id, title: `Track ${id}`, tenant: 1, deleted_at: null })),
  { id: 7, title: 'Track 7', tenant: 2, deleted_at: null },
  { id: 8, title: 'Track 8', tenant: 1, deleted_at: '2024-01-01 00:00:00' },
];

for (const dialect of dialects) {
  describe(`many-to-many writes on ${dialect}`, () => {
    let conn: Connection;
    let app: Awaited<ReturnType<typeof buildService<Ctx>>>;
    const name = `m2m_writes_${dialect}`;
    const serial =
      dialect === 'postgres'
        ? sql`serial primary key`
        : dialect === 'mysql'
          ? sql`integer auto_increment primary key`
          : sql`integer primary key`;
    const datetime =
      dialect === 'postgres' ? sql`timestamp` : dialect === 'mysql' ? sql`datetime` : sql`text`;

    beforeAll(async () => {
      conn = await freshDatabase(dialect, name);
      const db = conn.db;
      await sql`create table tracks (id integer primary key, title varchar(100) not null,
        tenant integer not null, deleted_at ${datetime} null)`.execute(db);
      await sql`create table playlists (id ${serial}, name varchar(40) not null unique, tenant integer not null default 1)`.execute(
        db,
      );
      await sql`create table playlist_track (
        playlist_id integer not null references playlists (id),
        track_id integer not null references tracks (id),
        note varchar(20) not null default 'new',
        primary key (playlist_id, track_id),
        constraint no_thirteen check (track_id <> 13))`.execute(db);
      await db.insertInto('tracks').values(trackRows).execute();
      await db
        .insertInto('playlists')
        .values([
          { name: 'Road trip', tenant: 1 },
          { name: 'Taken', tenant: 1 },
          { name: 'Elsewhere', tenant: 2 },
        ])
        .execute();
      await db
        .insertInto('playlist_track')
        .values([
          { playlist_id: 1, track_id: 1, note: 'opener' },
          { playlist_id: 1, track_id: 2, note: 'kept' },
          { playlist_id: 1, track_id: 8, note: 'trashed' },
        ])
        .execute();
      app = await buildService<Ctx>({
        config: {
          resources: [tracks, playlists],
          endpoints: [playlistsEndpoint, plainEndpoint, tracksEndpoint] as EndpointPolicy<Ctx>[],
          context: (request) => ({ tenant: Number(request.headers['x-tenant'] ?? 1) }),
        },
        connection: conn,
      });
    });
    afterAll(async () => {
      await app?.close();
      await conn?.db.destroy();
      await dropDatabase(dialect, name);
    });

    const send = (method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown, headers = {}) =>
      app.inject({ method, url, headers: { 'x-tenant': '1', ...headers }, ...(payload ? { payload } : {}) });
    /** The links of a playlist as stored: track → note, every one (in reach or not). */
    const links = async (playlist: number) => {
      const rows = await conn.db
        .selectFrom('playlist_track')
        .select(['track_id', 'note'])
        .where('playlist_id', '=', playlist)
        .orderBy('track_id')
        .execute();
      return Object.fromEntries(rows.map((row) => [Number(row.track_id), row.note]));
    };
    const nameOf = async (id: number) =>
      (await conn.db.selectFrom('playlists').select('name').where('id', '=', id).executeTakeFirst())?.name;

    it('creates a record with its links, new links getting the link table’s defaults', async () => {
      const res = await send('POST', '/api/playlists', { name: 'Morning', tracks: ['3', 1] });
      expect(res.statusCode, res.body).toBe(201);
      const created = res.json();
      expect(created).toMatchObject({ name: 'Morning', tracks: [1, 3] });
      expect(await links(created.id)).toEqual({ 1: 'new', 3: 'new' });
      const read = await send('GET', `/api/playlists/${created.id}?include=tracks`);
      expect(read.json().tracks.map((track: { id: number }) => track.id)).toEqual([1, 3]);
      expect(read.headers.etag).toBe(res.headers.etag);
    });

    it('replaces the set on PATCH: removed, added, kept with its own columns; out-of-reach links kept', async () => {
      const res = await send('PATCH', '/api/playlists/1', { tracks: [4, 2] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id: 1, name: 'Road trip', tracks: [2, 4] });
      // 1 removed, 2 kept with its note, 4 new; 8 (soft-deleted, not in the set this context sees) kept.
      expect(await links(1)).toEqual({ 2: 'kept', 4: 'new', 8: 'trashed' });
    });

    it('clears the set with an empty list, and leaves it alone when the body omits it', async () => {
      const created = (await send('POST', '/api/playlists', { name: 'Clear me', tracks: [5, 6] })).json();
      const renamed = await send('PATCH', `/api/playlists/${created.id}`, { name: 'Cleared' });
      expect(renamed.json().tracks).toEqual([5, 6]);
      const res = await send('PATCH', `/api/playlists/${created.id}`, { tracks: [] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().tracks).toEqual([]);
      expect(await links(created.id)).toEqual({});
    });

    it('refuses duplicates, null, too many keys and keys of the wrong kind, changing nothing', async () => {
      const before = await links(1);
      const cases: [unknown, RegExp][] = [
        [[2, 2], /names tracks 2 more than once/],
        [[2, '2'], /more than once/],
        [null, /must be a list of tracks ids/],
        [3, /must be a list of tracks ids/],
        [[1, 2, 3, 4, 5, 6], /not have more than 5 items/],
        [['abc'], /must hold tracks ids/],
        [[1.5], /must hold tracks ids/],
        [[{ id: 1 }], /must hold tracks ids/],
      ];
      for (const [value, message] of cases) {
        const res = await send('PATCH', '/api/playlists/1', { tracks: value });
        expect(res.statusCode, `${JSON.stringify(value)}: ${res.body}`).toBe(422);
        expect(Object.keys(res.json().errors)).toEqual(['tracks']);
        expect(res.json().errors.tracks.join(' ')).toMatch(message);
      }
      expect(await links(1)).toEqual(before);
    });

    it('answers a missing key, another tenant’s and a soft-deleted one alike, changing nothing', async () => {
      const before = await links(1);
      const bodies: string[] = [];
      for (const key of [999, 7, 8]) {
        const res = await send('PATCH', '/api/playlists/1', { name: 'Renamed', tracks: [2, key] });
        expect(res.statusCode, res.body).toBe(422);
        bodies.push(res.body);
        const created = await send('POST', '/api/playlists', { name: `New ${key}`, tracks: [key] });
        expect(created.statusCode).toBe(422);
        expect(created.body).toBe(res.body);
      }
      expect(new Set(bodies).size).toBe(1);
      expect(JSON.parse(bodies[0] as string).errors).toEqual({
        tracks: ['The selected tracks does not exist.'],
      });
      expect(await links(1)).toEqual(before);
      expect(await nameOf(1)).toBe('Road trip');
      // Another tenant's record is not found at all.
      expect((await send('PATCH', '/api/playlists/3', { tracks: [7] })).statusCode).toBe(404);
    });

    it('writes the links and the columns in one transaction: either refused keeps both', async () => {
      const before = await links(1);
      // The column refused (a name taken): the links are not changed.
      const taken = await send('PATCH', '/api/playlists/1', { name: 'Taken', tracks: [5] });
      expect(taken.statusCode, taken.body).toBe(409);
      expect(await links(1)).toEqual(before);
      // A link refused (the link table's rule): the column is not changed.
      const refused = await send('PATCH', '/api/playlists/1', { name: 'Renamed', tracks: [13] });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(Object.keys(refused.json().errors)).toEqual(['tracks']);
      expect(await nameOf(1)).toBe('Road trip');
      expect(await links(1)).toEqual(before);
      // On create: no record is kept.
      const create = await send('POST', '/api/playlists', { name: 'Thirteen', tracks: [1, 13] });
      expect(create.statusCode, create.body).toBe(422);
      const count = await conn.db
        .selectFrom('playlists')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('name', '=', 'Thirteen')
        .executeTakeFirst();
      expect(Number(count?.n)).toBe(0);
    });

    it('covers the set in the ETag: a change of links changes it, and a stale If-Match is 412', async () => {
      const first = await send('GET', '/api/playlists/2');
      const etag = first.headers.etag as string;
      const changed = await send('PATCH', '/api/playlists/2', { tracks: [3] }, { 'if-match': etag });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect((await send('GET', '/api/playlists/2')).headers.etag).toBe(changed.headers.etag);
      const stale = await send('PATCH', '/api/playlists/2', { name: 'Stale' }, { 'if-match': etag });
      expect(stale.statusCode, stale.body).toBe(412);
      // A link changed by someone else (here, straight in the database) changes the ETag too.
      const current = changed.headers.etag as string;
      await conn.db.insertInto('playlist_track').values({ playlist_id: 2, track_id: 4 }).execute();
      const after = await send('GET', '/api/playlists/2');
      expect(after.headers.etag).not.toBe(current);
      const late = await send('PATCH', '/api/playlists/2', { tracks: [] }, { 'if-match': current });
      expect(late.statusCode).toBe(412);
      expect(await links(2)).toEqual({ 3: 'new', 4: 'new' });
    });

    it('refuses the relation in a body where the form has no input for it', async () => {
      const res = await send('PATCH', '/api/plain-playlists/1', { tracks: [2] });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual({ tracks: ['The field "tracks" cannot be updated.'] });
    });

    it('describes the input in the schema document and the OpenAPI document', async () => {
      const schema = (await send('GET', '/api/v1/playlists/schema')).json();
      expect(schema.form.inputs.find((input: { name: string }) => input.name === 'tracks')).toEqual({
        name: 'tracks',
        label: 'Tracks',
        type: 'references',
        cols: 12,
        md: 12,
        required: false,
        references: {
          relation: 'tracks',
          resource: 'tracks',
          key: 'id',
          schema: '/api/v1/tracks/schema',
          maxItems: 5,
        },
      });
      const openapi = (await app.inject({ url: '/api/openapi.json' })).json();
      for (const name of ['PlaylistsCreate', 'PlaylistsUpdate'])
        expect(openapi.components.schemas[name].properties.tracks).toMatchObject({
          type: 'array',
          items: { type: 'integer' },
          uniqueItems: true,
          maxItems: 5,
        });
      const record = openapi.components.schemas.PlaylistsRecord.properties.tracks;
      expect(record.anyOf[1]).toMatchObject({ type: 'array', items: { type: 'integer' } });
    });

    it('refuses at start-up a references input that is not a many-to-many relation of one key', async () => {
      const make = (inputs: EndpointPolicy<Ctx>['schema']) =>
        buildService<Ctx>({
          config: {
            resources: [tracks, playlists],
            endpoints: [
              { resource: 'playlists', actions: ['update'], schema: inputs },
            ] as EndpointPolicy<Ctx>[],
          },
          connection: conn,
        });
      const columns = { columns: [{ key: 'id' }] };
      await expect(
        make({ table: columns, form: { inputs: [{ name: 'name', type: 'references' }] } }),
      ).rejects.toThrow(ConfigurationError);
      await expect(
        make({ table: columns, form: { inputs: [{ name: 'tracks', type: 'references', maxItems: 0 }] } }),
      ).rejects.toThrow(/maxItems/);
    });
  });
}
