import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveSetupStatements } from '../src/live/setup.js';
import { everyRow, scopeByColumn } from '../src/resource/equality-scope.js';
import type { EndpointPolicy, LiveOptions, ServiceConfig } from '../src/resource/policy.js';
import { resolveResources } from '../src/resource/resolve.js';
import type { ResourceDefinition } from '../src/resource/types.js';
import { buildService } from '../src/server/standalone.js';
import { type Connection, connect } from '../src/sql/connect.js';
import type { DialectName } from '../src/sql/dialect.js';
import { databaseUrl, dialects, dropDatabase, freshDatabase } from './support/databases.js';
import { hostNames, startHost } from './support/hosts.js';
import { openSse, type SseFrame, type SseStream } from './support/sse.js';

/**
 * Live streams through HTTP, on two service instances over one database: who learns of which change
 * (two tenants, an operator who moves rows between them, another program writing through triggers),
 * resuming with Last-Event-ID, and an instance that stops while its streams are open.
 */

interface Ctx {
  readonly tenant?: number;
  readonly operator?: boolean;
  /** Who holds a stream (streams per caller) and when the credentials expire (seconds since 1970). */
  readonly sub?: string;
  readonly exp?: number;
}

const notes: ResourceDefinition<Ctx> = {
  name: 'notes',
  table: 'notes',
  columns: { id: 'integer', tenant_id: 'integer', title: 'string', deleted_at: 'datetime' },
  softDeleteColumn: 'deleted_at',
  scope: scopeByColumn<Ctx>('tenant_id', (ctx) => (ctx?.operator ? everyRow : ctx?.tenant)),
};

const notesEndpoint: EndpointPolicy<Ctx> = {
  resource: 'notes',
  allowedFilters: ['trashed'],
  actions: ['list', 'read', 'create', 'update', 'delete', 'restore'],
  access: { create: () => true, update: () => true, delete: () => true, restore: () => true },
  schema: {
    title: 'Notes',
    table: { columns: [{ key: 'id' }, { key: 'title' }] },
    form: {
      inputs: [
        { name: 'title', type: 'text', required: true },
        { name: 'tenant_id', type: 'number', required: true },
      ],
    },
  },
};

/** Owners belong to a tenant; tasks to an owner: a task's tenant is its owner's, found by a sub-query. */
const ownersAndTasks: Record<DialectName, string[]> = {
  sqlite: [
    'create table owners (id integer primary key, tenant_id integer not null)',
    'create table tasks (id integer primary key autoincrement, owner_id integer not null references owners (id), title text not null, done integer not null default 0)',
  ],
  postgres: [
    'create table owners (id integer primary key, tenant_id integer not null)',
    'create table tasks (id serial primary key, owner_id integer not null references owners (id), title text not null, done boolean not null default false)',
  ],
  mysql: [
    'create table owners (id int primary key, tenant_id int not null)',
    'create table tasks (id int auto_increment primary key, owner_id int not null, title varchar(200) not null, done tinyint(1) not null default 0, foreign key (owner_id) references owners (id))',
  ],
};

const owners: ResourceDefinition<Ctx> = {
  name: 'owners',
  table: 'owners',
  columns: { id: 'integer', tenant_id: 'integer' },
};

/** A row scope written as a callback, with a sub-query: decided by the database, once per group. */
const tasks: ResourceDefinition<Ctx> = {
  name: 'tasks',
  table: 'tasks',
  columns: { id: 'integer', owner_id: 'integer', title: 'string', done: 'boolean' },
  scope: ({ eb, column, ctx }) =>
    ctx?.operator
      ? undefined
      : eb(
          column('owner_id'),
          'in',
          eb
            .selectFrom('owners as scope_owners')
            .select('scope_owners.id')
            .where('scope_owners.tenant_id', '=', ctx?.tenant ?? -1),
        ),
};

const tasksEndpoint: EndpointPolicy<Ctx> = {
  resource: 'tasks',
  actions: ['list', 'read', 'create', 'update', 'delete'],
  access: { create: () => true, update: () => true, delete: () => true },
  schema: {
    title: 'Tasks',
    table: { columns: [{ key: 'id' }, { key: 'title' }] },
    form: {
      inputs: [
        { name: 'title', type: 'text', required: true },
        { name: 'owner_id', type: 'number', required: true },
        { name: 'done', type: 'switch' },
      ],
    },
  },
};

/** An endpoint of notes whose baseQuery hides the unfinished ones: a callback too. */
const finishedNotes: EndpointPolicy<Ctx> = {
  resource: 'notes',
  path: 'finished-notes',
  actions: ['list', 'read'],
  baseQuery: ({ eb, column }) => eb(column('title'), 'not like', 'draft%'),
};

const config: ServiceConfig<Ctx> = {
  resources: [notes, owners, tasks],
  endpoints: [notesEndpoint, tasksEndpoint, finishedNotes],
  context: ({ headers }) => {
    if (headers['x-operator'] === '1') return { operator: true };
    const tenant = Number(headers['x-tenant']);
    const sub = typeof headers['x-sub'] === 'string' ? headers['x-sub'] : undefined;
    const exp = typeof headers['x-exp'] === 'string' ? Number(headers['x-exp']) : undefined;
    return {
      ...(Number.isInteger(tenant) && tenant > 0 && { tenant }),
      ...(sub !== undefined && { sub }),
      ...(exp !== undefined && { exp }),
    };
  },
  // Fast reads of the log and a short wait for a missing number: the suite waits for events, not time.
  live: { pollMs: 20, gapMs: 500 },
};

const createTable: Record<DialectName, string> = {
  sqlite:
    'create table notes (id integer primary key autoincrement, tenant_id integer not null, title text not null, deleted_at text)',
  postgres:
    'create table notes (id serial primary key, tenant_id integer not null, title text not null, deleted_at timestamptz)',
  mysql:
    'create table notes (id int auto_increment primary key, tenant_id int not null, title varchar(200) not null, deleted_at datetime(3) null)',
};

/** A fresh database with the notes table and the change log (and, with `triggers`, its triggers). */
async function notesDatabase(
  dialect: DialectName,
  name: string,
  action: 'setup' | 'triggers',
): Promise<{ setup: Connection; url: string }> {
  let url: string;
  let setup: Connection;
  if (dialect === 'sqlite') {
    url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'rqs-live-')), 'live.db')}`;
    setup = connect(url);
  } else {
    setup = await freshDatabase(dialect, name);
    url = databaseUrl(dialect, name);
  }
  await sql.raw(createTable[dialect]).execute(setup.db);
  for (const statement of ownersAndTasks[dialect]) await sql.raw(statement).execute(setup.db);
  await setup.db
    .insertInto('owners')
    .values([1, 2, 3].map((tenant) => ({ id: tenant * 10, tenant_id: tenant })))
    .execute();
  const resolved = resolveResources([notes, owners, tasks] as ResourceDefinition[], undefined).values();
  for (const statement of liveSetupStatements(setup.dialect, 'live_changes', resolved, action))
    await statement.execute(setup.db);
  return { setup, url };
}

/** One instance of the service, listening on a port of its own, with its own pool. */
interface Instance {
  readonly base: string;
  readonly connection: Connection;
  close(): Promise<void>;
  /** Drops every connection at once, as a killed process would: no `end` is written. */
  kill(): Promise<void>;
}

async function startInstance(url: string, live: LiveOptions = {}): Promise<Instance> {
  const connection = connect(url, { acquireTimeoutMs: 20_000 });
  const app = await buildService({
    config: { ...config, live: { ...config.live, ...live } } as ServiceConfig,
    connection,
    directReads: true,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}/api`,
    connection,
    close: async () => {
      // Node's fetch opens a fresh connection when a stream is aborted, and sends nothing on it: the
      // server's close() waits for it (its headers timeout). Past a grace, the harness closes it.
      const grace = setTimeout(() => app.server.closeAllConnections(), 2000);
      await app.close();
      clearTimeout(grace);
      await connection.close();
    },
    kill: async () => {
      app.server.closeAllConnections();
      app.server.close();
      await connection.close();
    },
  };
}

const as = (who: Ctx): Record<string, string> => ({
  ...(who.operator ? { 'x-operator': '1' } : { 'x-tenant': String(who.tenant) }),
  ...(who.sub !== undefined && { 'x-sub': who.sub }),
  ...(who.exp !== undefined && { 'x-exp': String(who.exp) }),
});

async function send(instance: Instance, method: string, path: string, who: Ctx, body?: unknown) {
  const response = await fetch(`${instance.base}/${path}`, {
    method,
    headers: { ...as(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** The changes a stream received, as `<type> <id>` per id, in order. */
const changesOf = (stream: SseStream): string[] =>
  stream.frames
    .filter((frame) => frame.event === 'change')
    .flatMap((frame) => {
      const data = frame.data as { topic: string; type: string; ids: unknown[] };
      return data.ids.map((id) => `${data.type} ${String(id)}`);
    });

const change =
  (type: string, id: unknown) =>
  (frame: SseFrame): boolean => {
    if (frame.event !== 'change') return false;
    const data = frame.data as { type: string; ids: unknown[] };
    return data.type === type && data.ids.includes(id);
  };

describe.each(dialects)('live streams on %s', (dialect) => {
  const name = 'live_streams';
  let url: string;
  let setup: Connection;
  let one: Instance;
  let two: Instance;
  const streams: SseStream[] = [];
  const open = async (instance: Instance, query: string, who: Ctx, headers: Record<string, string> = {}) => {
    const stream = await openSse(`${instance.base}/live?${query}`, { ...as(who), ...headers });
    streams.push(stream);
    return stream;
  };

  beforeAll(async () => {
    ({ setup, url } = await notesDatabase(dialect, name, 'setup'));
    one = await startInstance(url);
    two = await startInstance(url);
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await one?.close();
    await two?.close();
    await setup?.close();
    if (dialect !== 'sqlite') await dropDatabase(dialect, name);
  });

  it('tells each tenant of its own rows only, whichever instance wrote them, in order per row', async () => {
    const first = await open(one, 'topic=resource/notes', { tenant: 1 });
    const second = await open(two, 'topic=resource/notes', { tenant: 2 });
    const operator = await open(two, 'topic=resource/notes', { operator: true });
    expect([first.status, second.status, operator.status]).toEqual([200, 200, 200]);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);

    // Each write waits for every stream that must hear of it, so that none is folded with the next.
    const step = async <T>(write: () => Promise<T>, hears: (written: T) => [SseStream, string][]) => {
      const from = new Map(streams.map((stream) => [stream, stream.frames.length]));
      const written = await write();
      for (const [stream, type] of hears(written))
        await stream.until(change(type, (written as { id?: unknown }).id), 20_000, from.get(stream));
      return written;
    };
    const a = await step(
      () => send(two, 'POST', 'notes', { tenant: 1 }, { title: 'a', tenant_id: 1 }),
      () => [
        [first, 'created'],
        [operator, 'created'],
      ],
    );
    const b = await step(
      () => send(one, 'POST', 'notes', { tenant: 2 }, { title: 'b', tenant_id: 2 }),
      () => [
        [second, 'created'],
        [operator, 'created'],
      ],
    );
    const onA = (type: string) => () =>
      [
        [first, type],
        [operator, type],
      ] as [SseStream, string][];
    await step(
      async () => ({
        ...(await send(one, 'PATCH', `notes/${a.id}`, { tenant: 1 }, { title: 'a2' })),
        id: a.id,
      }),
      onA('updated'),
    );
    await step(
      async () => ({ ...(await send(two, 'DELETE', `notes/${a.id}`, { tenant: 1 })), id: a.id }),
      onA('deleted'),
    );
    await step(
      async () => ({ ...(await send(one, 'POST', `notes/${a.id}/restore`, { tenant: 1 })), id: a.id }),
      onA('created'),
    );
    // The operator moves b from tenant 2 to tenant 1: gone for 2, new for 1.
    await step(
      async () => ({
        ...(await send(two, 'PATCH', `notes/${b.id}`, { operator: true }, { tenant_id: 1 })),
        id: b.id,
      }),
      () => [
        [second, 'deleted'],
        [first, 'created'],
        [operator, 'updated'],
      ],
    );
    // A marker each: once it is there, every change before it has been decided for that stream.
    const last1 = await step(
      () => send(one, 'POST', 'notes', { tenant: 1 }, { title: 'end', tenant_id: 1 }),
      () => [
        [first, 'created'],
        [operator, 'created'],
      ],
    );
    const last2 = await step(
      () => send(two, 'POST', 'notes', { tenant: 2 }, { title: 'end', tenant_id: 2 }),
      () => [
        [second, 'created'],
        [operator, 'created'],
      ],
    );

    expect(changesOf(first)).toEqual([
      `created ${a.id}`,
      `updated ${a.id}`,
      `deleted ${a.id}`,
      `created ${a.id}`,
      `created ${b.id}`,
      `created ${last1.id}`,
    ]);
    expect(changesOf(second)).toEqual([`created ${b.id}`, `deleted ${b.id}`, `created ${last2.id}`]);
    // The operator sees every row: each change as an update or a create, a soft delete as a delete.
    expect(changesOf(operator)).toEqual([
      `created ${a.id}`,
      `created ${b.id}`,
      `updated ${a.id}`,
      `deleted ${a.id}`,
      `created ${a.id}`,
      `updated ${b.id}`,
      `created ${last1.id}`,
      `created ${last2.id}`,
    ]);
    // Ids are answered as the list answers them.
    expect(typeof a.id).toBe('number');
  });

  it('resumes from Last-Event-ID on another instance and loses nothing', async () => {
    const stream = await open(one, 'topic=resource/notes', { tenant: 3 });
    const x = await send(one, 'POST', 'notes', { tenant: 3 }, { title: 'x', tenant_id: 3 });
    await stream.until(change('created', x.id));
    const resumeAt = stream.lastId();
    expect(resumeAt).toMatch(/^\d+$/);
    stream.close();
    // Written while no stream of tenant 3 is open, one of them by the other tenant.
    const y = await send(two, 'POST', 'notes', { tenant: 3 }, { title: 'y', tenant_id: 3 });
    await send(two, 'POST', 'notes', { tenant: 4 }, { title: 'other', tenant_id: 4 });
    await send(one, 'PATCH', `notes/${x.id}`, { tenant: 3 }, { title: 'x2' });
    const resumed = await open(
      two,
      'topic=resource/notes',
      { tenant: 3 },
      { 'last-event-id': resumeAt as string },
    );
    await resumed.until(change('updated', x.id));
    expect(changesOf(resumed)).toEqual([`created ${y.id}`, `updated ${x.id}`]);
  });

  it("a record's topic carries that record's changes only", async () => {
    const p = await send(one, 'POST', 'notes', { tenant: 5 }, { title: 'p', tenant_id: 5 });
    const q = await send(one, 'POST', 'notes', { tenant: 5 }, { title: 'q', tenant_id: 5 });
    const stream = await open(two, `topic=resource/notes/${p.id}`, { tenant: 5 });
    await send(one, 'PATCH', `notes/${q.id}`, { tenant: 5 }, { title: 'q2' });
    await send(one, 'PATCH', `notes/${p.id}`, { tenant: 5 }, { title: 'p2' });
    await stream.until(change('updated', p.id));
    expect(changesOf(stream)).toEqual([`updated ${p.id}`]);
    expect(stream.frames[0]?.data).toMatchObject({ topic: `resource/notes/${p.id}` });
  });

  it('is documented in the OpenAPI document as it answers', async () => {
    const document = (await (await fetch(`${one.base}/openapi.json`)).json()) as {
      paths: Record<
        string,
        { get?: { parameters: { name: string; schema: unknown }[]; responses: Record<string, unknown> } }
      >;
    };
    const operation = document.paths['/api/live']?.get;
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual([
      '200',
      '401',
      '403',
      '422',
      '429',
      '503',
    ]);
    expect(operation?.responses['200']).toMatchObject({ content: { 'text/event-stream': {} } });
    const topic = operation?.parameters.find((parameter) => parameter.name === 'topic');
    // Every endpoint's list topic, and the form of a record's.
    expect(topic?.schema).toMatchObject({
      items: {
        anyOf: [
          { enum: ['resource/notes', 'resource/tasks', 'resource/finished-notes'] },
          { pattern: expect.stringContaining('notes|tasks|finished-notes') },
        ],
      },
    });
  });

  it('refuses what it cannot serve, keyed by the parameter', async () => {
    const none = await open(one, '', { tenant: 1 });
    expect(none.status).toBe(422);
    expect(none.refusal).toMatchObject({ errors: { topic: [expect.stringMatching(/at least one topic/)] } });
    const unknown = await open(one, 'topic=resource/nothing&topic=users', { tenant: 1 });
    expect(unknown.status).toBe(422);
    expect((unknown.refusal as { errors: { topic: string[] } }).errors.topic).toHaveLength(2);
    const badId = await open(one, 'topic=resource/notes&last_event_id=abc', { tenant: 1 });
    expect(badId.status).toBe(422);
    expect(badId.refusal).toMatchObject({ errors: { last_event_id: [expect.any(String)] } });
  });

  it('ends its streams with a word when the instance stops, and another resumes them', async () => {
    const third = await startInstance(url);
    const stream = await openSse(`${third.base}/live?topic=resource/notes`, as({ tenant: 6 }));
    const r = await send(one, 'POST', 'notes', { tenant: 6 }, { title: 'r', tenant_id: 6 });
    await stream.until(change('created', r.id));
    await third.close();
    await stream.ended;
    expect(stream.frames.at(-1)).toEqual({ event: 'end', data: { reason: 'shutdown' } });
    const s = await send(one, 'POST', 'notes', { tenant: 6 }, { title: 's', tenant_id: 6 });
    const resumed = await open(
      two,
      'topic=resource/notes',
      { tenant: 6 },
      { 'last-event-id': stream.lastId() as string },
    );
    await resumed.until(change('created', s.id));
    expect(changesOf(resumed)).toEqual([`created ${s.id}`]);
  });
  it('decides a callback row scope and a baseQuery by the database, on the images before and after', async () => {
    const first = await open(one, 'topic=resource/tasks&topic=resource/finished-notes', { tenant: 1 });
    const also = await open(two, 'topic=resource/tasks', { tenant: 1 });
    const second = await open(two, 'topic=resource/tasks', { tenant: 2 });
    const step = async (write: () => Promise<unknown>, waits: [SseStream, string, unknown][]) => {
      const from = new Map([first, also, second].map((stream) => [stream, stream.frames.length]));
      await write();
      for (const [stream, type, id] of waits) await stream.until(change(type, id), 20_000, from.get(stream));
    };
    const t = await send(one, 'POST', 'tasks', { tenant: 1 }, { title: 't', owner_id: 10 });
    await first.until(change('created', t.id));
    await also.until(change('created', t.id));
    // The operator gives the task to tenant 2's owner: gone for 1, new for 2.
    await step(
      () => send(two, 'PATCH', `tasks/${t.id}`, { operator: true }, { owner_id: 20 }),
      [
        [first, 'deleted', t.id],
        [also, 'deleted', t.id],
        [second, 'created', t.id],
      ],
    );
    await step(() => send(one, 'DELETE', `tasks/${t.id}`, { tenant: 2 }), [[second, 'deleted', t.id]]);
    // A note titled as a draft is outside finished-notes' baseQuery; once renamed it is in.
    const draft = await send(one, 'POST', 'notes', { tenant: 1 }, { title: 'draft x', tenant_id: 1 });
    await step(
      () => send(one, 'PATCH', `notes/${draft.id}`, { tenant: 1 }, { title: 'final x' }),
      [[first, 'created', draft.id]],
    );
    const marker2 = await send(one, 'POST', 'tasks', { tenant: 2 }, { title: 'end', owner_id: 20 });
    await second.until(change('created', marker2.id));
    const marker1 = await send(one, 'POST', 'tasks', { tenant: 1 }, { title: 'end', owner_id: 10 });
    await first.until(change('created', marker1.id));
    expect(changesOf(first)).toEqual([
      `created ${t.id}`,
      `deleted ${t.id}`,
      `created ${draft.id}`,
      `created ${marker1.id}`,
    ]);
    expect(changesOf(second)).toEqual([`created ${t.id}`, `deleted ${t.id}`, `created ${marker2.id}`]);
  });

  it('two tenants writing at once through both instances: each hears all of its rows and none of the other’s, each row in order', async () => {
    const tenants = [11, 12] as const;
    const listeners = new Map(
      await Promise.all(
        tenants.map(
          async (tenant) =>
            [tenant, await open(tenant === 11 ? one : two, 'topic=resource/notes', { tenant })] as const,
        ),
      ),
    );
    /** What each row went through, per tenant that could see it, as the writes answered. */
    const rows = new Map<number, { tenant: number; alive: boolean }>();
    const work = async (tenant: number) => {
      for (let i = 0; i < 12; i++) {
        const via = i % 2 === 0 ? one : two;
        const created = await send(
          via,
          'POST',
          'notes',
          { tenant },
          { title: `c${tenant}-${i}`, tenant_id: tenant },
        );
        const id = created.id as number;
        rows.set(id, { tenant, alive: true });
        await send(i % 2 === 0 ? two : one, 'PATCH', `notes/${id}`, { tenant }, { title: `u${tenant}-${i}` });
        if (i % 3 === 0) {
          await send(via, 'DELETE', `notes/${id}`, { tenant });
          rows.set(id, { tenant, alive: false });
        }
        if (i % 6 === 0) {
          await send(via, 'POST', `notes/${id}/restore`, { tenant });
          rows.set(id, { tenant, alive: true });
        }
      }
    };
    await Promise.all(tenants.map(work));
    // A marker each, written last: once it is heard, every change before it has been decided.
    for (const tenant of tenants) {
      const marker = await send(one, 'POST', 'notes', { tenant }, { title: 'marker', tenant_id: tenant });
      rows.set(marker.id as number, { tenant, alive: true });
      await listeners.get(tenant)?.until(change('created', marker.id));
    }
    for (const tenant of tenants) {
      const stream = listeners.get(tenant) as SseStream;
      const byRow = new Map<number, string[]>();
      for (const line of changesOf(stream)) {
        const [type, id] = line.split(' ') as [string, string];
        byRow.set(Number(id), [...(byRow.get(Number(id)) ?? []), type]);
      }
      const mine = [...rows].filter(([, row]) => row.tenant === tenant).map(([id]) => id);
      // Every row of its own, and nothing else.
      expect([...byRow.keys()].sort((a, b) => a - b)).toEqual(mine.sort((a, b) => a - b));
      for (const [id, types] of byRow) {
        // In order: a row is created before it changes, never changed after it is deleted unless created again,
        // and ends as the writes left it.
        let present = false;
        for (const type of types) {
          if (type === 'created') expect(present, `${id}: ${types}`).toBe(false);
          else if (type === 'updated') expect(present, `${id}: ${types}`).toBe(true);
          present = type !== 'deleted';
        }
        expect(present, `${id}: ${types}`).toBe(rows.get(id)?.alive);
      }
    }
  });

  it('a killed instance writes no word; its streams resume on another and lose nothing', async () => {
    const doomed = await startInstance(url);
    const stream = await openSse(`${doomed.base}/live?topic=resource/notes`, as({ tenant: 7 }));
    const k = await send(one, 'POST', 'notes', { tenant: 7 }, { title: 'k', tenant_id: 7 });
    await stream.until(change('created', k.id));
    await doomed.kill();
    await stream.ended;
    expect(stream.frames.some((frame) => frame.event === 'end')).toBe(false);
    const l = await send(two, 'POST', 'notes', { tenant: 7 }, { title: 'l', tenant_id: 7 });
    await send(one, 'PATCH', `notes/${k.id}`, { tenant: 7 }, { title: 'k2' });
    const resumed = await open(
      one,
      'topic=resource/notes',
      { tenant: 7 },
      { 'last-event-id': stream.lastId() as string },
    );
    await resumed.until(change('updated', k.id));
    expect(changesOf(resumed)).toEqual([`created ${l.id}`, `updated ${k.id}`]);
  });

  it('counts no caller for a context that names none, and bounds every stream of an instance (503)', async () => {
    const capped = await startInstance(url, { maxStreamsPerCaller: 1, maxStreams: 2 });
    try {
      // Two contexts without a `sub`: not one caller's two streams.
      const first = await openSse(`${capped.base}/live?topic=resource/notes`, as({ tenant: 10 }));
      const second = await openSse(`${capped.base}/live?topic=resource/notes`, as({ tenant: 10 }));
      streams.push(first, second);
      expect([first.status, second.status]).toEqual([200, 200]);
      const third = await openSse(`${capped.base}/live?topic=resource/notes`, as({ tenant: 10, sub: 'x' }));
      expect(third.status).toBe(503);
      expect(third.headers.get('retry-after')).toBe('5');
      expect(third.refusal).toMatchObject({ errors: { live: [expect.stringMatching(/most live streams/)] } });
      // A closed stream frees its place.
      first.close();
      await expect
        .poll(async () => {
          const again = await openSse(`${capped.base}/live?topic=resource/notes`, as({ tenant: 10 }));
          again.close();
          return again.status;
        })
        .toBe(200);
    } finally {
      await capped.close();
    }
  });

  it('holds its limits: topics per stream, streams per caller, events per second, and the credentials’ expiry', async () => {
    const limited = await startInstance(url, { maxTopics: 2, maxStreamsPerCaller: 2, maxEventsPerSecond: 2 });
    try {
      const three = await openSse(
        `${limited.base}/live?topic=resource/notes&topic=resource/notes/1&topic=resource/notes/2`,
        as({ tenant: 8 }),
      );
      expect(three.status).toBe(422);
      expect(three.refusal).toMatchObject({ errors: { topic: [expect.stringMatching(/at most 2 topics/)] } });

      const caller = { tenant: 8, sub: 'someone' };
      const first = await openSse(`${limited.base}/live?topic=resource/notes`, as(caller));
      const second = await openSse(`${limited.base}/live?topic=resource/notes`, as(caller));
      streams.push(first, second);
      const third = await openSse(`${limited.base}/live?topic=resource/notes`, as(caller));
      expect([first.status, second.status, third.status]).toEqual([200, 200, 429]);
      expect(third.headers.get('retry-after')).toBe('5');
      expect(third.refusal).toMatchObject({ errors: { live: [expect.any(String)] } });
      // Another caller is not counted with this one; a closed stream frees its place.
      const other = await openSse(
        `${limited.base}/live?topic=resource/notes`,
        as({ tenant: 8, sub: 'other' }),
      );
      streams.push(other);
      expect(other.status).toBe(200);
      second.close();
      await expect
        .poll(async () => {
          const again = await openSse(`${limited.base}/live?topic=resource/notes`, as(caller));
          again.close();
          return again.status;
        })
        .toBe(200);

      // Three topics' changes in one second, past 2 events: a reset for the rest of that second.
      const m = await send(one, 'POST', 'notes', { tenant: 8 }, { title: 'm', tenant_id: 8 });
      const n = await send(one, 'POST', 'notes', { tenant: 8 }, { title: 'n', tenant_id: 8 });
      const busy = await openSse(
        `${limited.base}/live?topic=resource/notes/${m.id}&topic=resource/notes/${n.id}`,
        as({ tenant: 8, sub: 'busy' }),
      );
      streams.push(busy);
      // Written until the stream resets: a busy machine may spread the first writes over seconds.
      for (let i = 0; i < 100 && !busy.frames.some((frame) => frame.event === 'reset'); i++) {
        await send(one, 'PATCH', `notes/${m.id}`, { tenant: 8 }, { title: `m${i}` });
        await send(one, 'PATCH', `notes/${n.id}`, { tenant: 8 }, { title: `n${i}` });
      }
      await busy.until((frame) => frame.event === 'reset');
      const reset = busy.frames.find((frame) => frame.event === 'reset');
      expect(reset?.data).toEqual({
        topics: [`resource/notes/${m.id}`, `resource/notes/${n.id}`],
        reason: 'rate',
      });

      // Credentials that expire in a second end their stream then, saying so.
      const exp = Math.floor(Date.now() / 1000) + 1;
      const expiring = await openSse(
        `${limited.base}/live?topic=resource/notes`,
        as({ tenant: 8, sub: 'e', exp }),
      );
      streams.push(expiring);
      await expiring.ended;
      expect(expiring.frames.at(-1)).toEqual({ event: 'end', data: { reason: 'expired' } });
      // Not before the expiry (a timer may fire a few milliseconds early).
      expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000 - 50);
    } finally {
      await limited.close();
    }
  });
});

describe.each(dialects)('live streams woken by Redis on %s', (dialect) => {
  const name = 'live_bus';
  let setup: Connection;
  let url: string;
  const instances: Instance[] = [];
  const streams: SseStream[] = [];
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

  beforeAll(async () => {
    ({ setup, url } = await notesDatabase(dialect, name, 'setup'));
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    for (const instance of instances) await instance.close();
    await setup?.close();
    if (dialect !== 'sqlite') await dropDatabase(dialect, name);
  });

  it('delivers a write on one instance to the streams of another at once, without waiting for a poll', async () => {
    // A read of the log every ten minutes: only the bus can bring the event within the test's wait.
    const slow = { redisUrl, pollMs: 600_000 };
    const writer = await startInstance(url, slow);
    const reader = await startInstance(url, slow);
    instances.push(writer, reader);
    const stream = await openSse(`${reader.base}/live?topic=resource/notes`, as({ tenant: 1 }));
    streams.push(stream);
    // The stream's first read of the log has been made once its first change can be told from its start.
    const a = await send(writer, 'POST', 'notes', { tenant: 1 }, { title: 'a', tenant_id: 1 });
    await stream.until(change('created', a.id));
    const b = await send(writer, 'PATCH', `notes/${a.id}`, { tenant: 1 }, { title: 'b' });
    await stream.until(change('updated', b.id));
    expect(changesOf(stream)).toEqual([`created ${a.id}`, `updated ${a.id}`]);
  });

  it('starts, and delivers by reading the log, when Redis cannot be reached', async () => {
    // A port nothing listens on: a warning, and the log's reads every 20 ms.
    const unreachable = await startInstance(url, { redisUrl: 'redis://127.0.0.1:1', pollMs: 20 });
    instances.push(unreachable);
    const stream = await openSse(`${unreachable.base}/live?topic=resource/notes`, as({ tenant: 2 }));
    streams.push(stream);
    const c = await send(unreachable, 'POST', 'notes', { tenant: 2 }, { title: 'c', tenant_id: 2 });
    await stream.until(change('created', c.id));
  });
});

describe.each(dialects)('live streams of writes by other programs on %s (triggers)', (dialect) => {
  const name = 'live_triggers';
  let setup: Connection;
  let instance: Instance;
  let beside: Instance;
  const streams: SseStream[] = [];

  beforeAll(async () => {
    let url: string;
    ({ setup, url } = await notesDatabase(dialect, name, 'triggers'));
    instance = await startInstance(url);
    beside = await startInstance(url);
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await instance?.close();
    await beside?.close();
    await setup?.close();
    if (dialect !== 'sqlite') await dropDatabase(dialect, name);
  });

  it('records every write once, the service’s and another program’s, and tells each tenant its own', async () => {
    // One tenant's stream on each instance; the service's writes go through the first.
    const open = async (who: Ctx) => {
      const on = who.tenant === 2 ? beside : instance;
      const stream = await openSse(`${on.base}/live?topic=resource/notes`, as(who));
      streams.push(stream);
      return stream;
    };
    const first = await open({ tenant: 1 });
    const second = await open({ tenant: 2 });
    const db = setup.db;
    const insert = async (tenant: number, title: string): Promise<number> => {
      await db.insertInto('notes').values({ tenant_id: tenant, title }).execute();
      const row = await db
        .selectFrom('notes')
        .select('id')
        .where('title', '=', title)
        .executeTakeFirstOrThrow();
      return Number(row.id);
    };
    const mine = await send(instance, 'POST', 'notes', { tenant: 1 }, { title: 'service', tenant_id: 1 });
    await first.until(change('created', mine.id));
    const other = await insert(1, 'program');
    await first.until(change('created', other));
    const foreign = await insert(2, 'foreign');
    await second.until(change('created', foreign));
    // Another program moves its row to tenant 2, then deletes the service's row.
    await db.updateTable('notes').set({ tenant_id: 2 }).where('id', '=', other).execute();
    await first.until(change('deleted', other));
    await second.until(change('created', other));
    await db
      .deleteFrom('notes')
      .where('id', '=', mine.id as number)
      .execute();
    await first.until(change('deleted', mine.id));
    const end1 = await insert(1, 'end1');
    const end2 = await insert(2, 'end2');
    await first.until(change('created', end1));
    await second.until(change('created', end2));
    expect(changesOf(first)).toEqual([
      `created ${mine.id}`,
      `created ${other}`,
      `deleted ${other}`,
      `deleted ${mine.id}`,
      `created ${end1}`,
    ]);
    expect(changesOf(second)).toEqual([`created ${foreign}`, `created ${other}`, `created ${end2}`]);
  });
});

describe('live streams through every host', () => {
  const name = 'live_hosts';
  let setup: Connection;
  let url: string;

  beforeAll(async () => {
    ({ setup, url } = await notesDatabase('sqlite', name, 'setup'));
  });
  afterAll(async () => {
    await setup?.close();
  });

  it.each(hostNames)(
    '%s: a write reaches an open stream, and a stream open when the host stops ends with a word',
    async (hostName) => {
      const connection = connect(url);
      const host = await startHost(hostName, config as ServiceConfig, connection);
      let closed = false;
      try {
        // Fastify's hosts are injected elsewhere; a stream needs a socket.
        const base = host.fastify
          ? await host.fastify.listen({ port: 0, host: '127.0.0.1' })
          : `http://${host.authority}`;
        const stream = await openSse(`${base}/api/live?topic=resource/notes`, as({ tenant: 9 }));
        expect(stream.status).toBe(200);
        const written = await host.inject({
          method: 'POST',
          url: '/api/notes',
          headers: as({ tenant: 9 }),
          payload: { title: hostName, tenant_id: 9 },
        });
        expect(written.statusCode).toBe(201);
        await stream.until(change('created', written.json().id));
        // Streams still open when the host stops end with a word (the handler's close()). None aborted
        // first: Node's fetch then opens a connection it sends nothing on, which close() waits for
        // (docs/live.md).
        const open = await openSse(`${base}/api/live?topic=resource/notes`, as({ tenant: 9 }));
        expect(open.status).toBe(200);
        await host.close();
        closed = true;
        await Promise.all([open.ended, stream.ended]);
        expect(open.frames.at(-1)).toEqual({ event: 'end', data: { reason: 'shutdown' } });
        expect(stream.frames.at(-1)).toEqual({ event: 'end', data: { reason: 'shutdown' } });
      } finally {
        if (!closed) await host.close();
        await connection.close();
      }
    },
  );
});
