import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { type Delivery, LiveHub, type Subscriber } from '../../src/live/hub.js';
import { ChangeLog } from '../../src/live/log.js';
import { liveSettings } from '../../src/live/settings.js';
import { connect } from '../../src/sql/connect.js';

/**
 * The hub's order on a real SQLite log whose rows the test numbers itself: a missing number holds the
 * changes after it until it commits or `gapMs` passes, and one that commits after it was passed over
 * resets its table's topics instead of arriving out of order.
 */
describe('the live hub', () => {
  const connection = connect(`sqlite:${join(mkdtempSync(join(tmpdir(), 'rqs-hub-')), 'hub.db')}`);
  afterAll(() => connection.close());

  it('waits for a missing number, passes over it after gapMs, and resets on its late arrival', async () => {
    for (const statement of connection.dialect.changeLog.create('live_changes'))
      await statement.execute(connection.db);
    const record = (seq: number, key: string) =>
      sql`insert into live_changes (seq, table_name, row_key, op, before_image, after_image)
        values (${seq}, 'notes', ${key}, 'i', null, '{}')`.execute(connection.db);
    await record(1, 'a');
    const settings = liveSettings({ pollMs: 10, gapMs: 300 });
    const hub = new LiveHub(
      new ChangeLog(connection.db, connection.dialect.changeLog, 'live_changes'),
      settings,
      (error) => {
        throw error;
      },
    );
    const seen: string[] = [];
    let wake: () => void = () => undefined;
    const subscriber: Subscriber = {
      topics: [
        {
          topic: 'resource/notes',
          table: 'notes',
          viewer: { group: '*', sees: (image) => image !== null },
          idOf: (key) => key,
        },
      ],
      deliver: (delivery: Delivery) => {
        for (const change of delivery.changes)
          seen.push(`${delivery.seq} ${change.type} ${change.ids.join(',')}`);
        wake();
      },
      reset: (topics, reason, seq) => {
        seen.push(`${seq} reset ${reason} ${topics.join(',')}`);
        wake();
      },
      ping: () => undefined,
      end: () => undefined,
      settled: Promise.resolve(),
    };
    const next = () =>
      new Promise<void>((resolve) => {
        wake = resolve;
      });
    const remove = await hub.subscribe(subscriber, undefined);
    // 3 is committed, 2 not yet: 3 waits.
    await record(3, 'c');
    const passedOver = next();
    const started = Date.now();
    await passedOver;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(seen).toEqual(['3 created c']);
    // 2 commits after it was passed over: its table's topics are reset, once.
    const late = next();
    await record(2, 'b');
    await late;
    await record(4, 'd');
    await next();
    expect(seen).toEqual(['3 created c', '3 reset late resource/notes', '4 created d']);
    remove();
    await hub.close();
  });

  it('asks the database once per group of viewers and batch, whatever the number of subscribers', async () => {
    await sql`delete from live_changes`.execute(connection.db);
    const record = (seq: number, key: string, tenant: number) =>
      sql`insert into live_changes (seq, table_name, row_key, op, before_image, after_image)
        values (${seq}, 'tasks', ${key}, 'i', null, ${JSON.stringify({ tenant })})`.execute(connection.db);
    await record(100, 'start', 0);
    const hub = new LiveHub(
      new ChangeLog(connection.db, connection.dialect.changeLog, 'live_changes'),
      liveSettings({ pollMs: 10 }),
      (error) => {
        throw error;
      },
    );
    const asked: string[] = [];
    // A viewer decided "by the database": here a function of the images, counting its calls.
    const viewer = (tenant: number) => ({
      group: `tenant ${tenant}`,
      decide: async (images: readonly { readonly [key: string]: unknown }[]) => {
        asked.push(`tenant ${tenant}: ${images.length} images`);
        return new Set(images.flatMap((image, i) => (image.tenant === tenant ? [i + 1] : [])));
      },
    });
    const heard: string[][] = [[], [], []];
    const delivered: (() => void)[] = [];
    const subscriber = (i: number, tenant: number): Subscriber => ({
      topics: [{ topic: 'resource/tasks', table: 'tasks', viewer: viewer(tenant), idOf: (key) => key }],
      deliver: (delivery) => {
        for (const change of delivery.changes) heard[i]?.push(`${change.type} ${change.ids.join(',')}`);
        delivered[i]?.();
      },
      reset: () => undefined,
      ping: () => undefined,
      end: () => undefined,
      settled: Promise.resolve(),
    });
    const removes = [
      await hub.subscribe(subscriber(0, 1), undefined),
      await hub.subscribe(subscriber(1, 1), undefined),
      await hub.subscribe(subscriber(2, 2), undefined),
    ];
    const arrivals = [0, 1, 2].map(
      (i) =>
        new Promise<void>((resolve) => {
          delivered[i] = resolve;
        }),
    );
    // One batch: three rows, two tenants.
    await sql`insert into live_changes (seq, table_name, row_key, op, before_image, after_image) values
      (101, 'tasks', 'a', 'i', null, ${JSON.stringify({ tenant: 1 })}),
      (102, 'tasks', 'b', 'i', null, ${JSON.stringify({ tenant: 2 })}),
      (103, 'tasks', 'c', 'i', null, ${JSON.stringify({ tenant: 1 })})`.execute(connection.db);
    await Promise.all(arrivals);
    expect(heard).toEqual([['created a,c'], ['created a,c'], ['created b']]);
    // Two groups, one question each: the two subscribers of tenant 1 share theirs.
    expect(asked).toEqual(['tenant 1: 3 images', 'tenant 2: 3 images']);
    for (const remove of removes) remove();
    await hub.close();
  });
});
