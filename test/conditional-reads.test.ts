import { describe, expect, it } from 'vitest';
import type { InjectResponse } from './support/hosts.js';
import { serviceTargets, targetName, useService } from './support/service.js';

/**
 * Reads carry a validator and honour it: a polling view that asks again with `If-None-Match` gets a
 * 304 without a body until the answer changes. Through every database and every host.
 */

const LIST = '/api/users?sort=name&per_page=5';

/** The headers a 304 keeps (and the ETag) are those of the 200 it stands for. */
const cachingOf = (res: InjectResponse) => ({
  etag: res.headers.etag,
  'cache-control': res.headers['cache-control'],
});

for (const target of serviceTargets) {
  describe(`conditional reads on ${targetName(target)}`, () => {
    const service = useService(target.dialect, 'conditional', {}, target.host);
    const get = (url: string, headers: Record<string, string> = {}) =>
      service.inject({ method: 'GET', url, headers });

    it('answers a list with an ETag of what it answered, the same while nothing changes', async () => {
      const first = await get(LIST);
      expect(first.statusCode).toBe(200);
      expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      // The context decides what is answered: only the caller's own cache may keep it.
      expect(first.headers['cache-control']).toBe('private, no-cache');
      expect(String(first.headers.vary)).toMatch(/Authorization/);
      const again = await get(LIST);
      expect(again.headers.etag).toBe(first.headers.etag);
      const other = await get('/api/users?sort=-name&per_page=5');
      expect(other.headers.etag).not.toBe(first.headers.etag);
    });

    it('answers 304 without a body when If-None-Match names the ETag, weakly compared, in a list or *', async () => {
      const first = await get(LIST);
      const etag = String(first.headers.etag);
      for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const res = await get(LIST, { 'if-none-match': header });
        expect(res.statusCode, header).toBe(304);
        expect(res.body).toBe('');
        expect(cachingOf(res)).toEqual(cachingOf(first));
      }
      const stale = await get(LIST, { 'if-none-match': '"nope"' });
      expect(stale.statusCode).toBe(200);
      expect(stale.json()).toEqual(first.json());
    });

    it('answers 200 with a new ETag once a listed record changed', async () => {
      const first = await get(LIST);
      const [top] = first.json().data as { id: number; name: string }[];
      if (!top) throw new Error('the fixture has users');
      await service.conn.db
        .updateTable('users')
        .set({ name: `${top.name}!` })
        .where('id', '=', top.id)
        .execute();
      const after = await get(LIST, { 'if-none-match': String(first.headers.etag) });
      expect(after.statusCode).toBe(200);
      expect(after.headers.etag).not.toBe(first.headers.etag);
      expect(after.json().data[0].name).toBe(`${top.name}!`);
      const again = await get(LIST, { 'if-none-match': String(after.headers.etag) });
      expect(again.statusCode).toBe(304);
    });

    it("answers read-one 304 on the record's own ETag, and 200 once the record changed", async () => {
      const first = await get('/api/users/3');
      expect(first.statusCode).toBe(200);
      const etag = String(first.headers.etag);
      expect((await get('/api/users/3', { 'if-none-match': etag })).statusCode).toBe(304);
      // The same validator that a write's If-Match takes.
      await service.conn.db.updateTable('users').set({ score: 1 }).where('id', '=', 3).execute();
      const after = await get('/api/users/3', { 'if-none-match': etag });
      expect(after.statusCode).toBe(200);
      expect(after.json().score).toBe(1);
      expect(after.headers.etag).not.toBe(etag);
    });

    it('answers HEAD like GET: 304 on a match, the ETag otherwise', async () => {
      const first = await get(LIST);
      const head = await service.inject({
        method: 'HEAD',
        url: LIST,
        headers: { 'if-none-match': String(first.headers.etag) },
      });
      expect(head.statusCode).toBe(304);
      const fresh = await service.inject({ method: 'HEAD', url: LIST });
      expect(fresh.statusCode).toBe(200);
      expect(fresh.headers.etag).toBe(first.headers.etag);
    });

    it('gives no 304 to a refusal and no ETag to an error', async () => {
      const res = await get('/api/users?filter[nope]=1', { 'if-none-match': '*' });
      expect(res.statusCode).toBe(422);
      expect(res.headers.etag).toBeUndefined();
      const missing = await get('/api/users/999999', { 'if-none-match': '*' });
      expect(missing.statusCode).toBe(404);
    });
  });
}

for (const dialect of ['sqlite', 'postgres', 'mysql'] as const)
  describe(`conditional reads without a context on ${dialect}`, () => {
    const service = useService(dialect, 'conditional_public', { context: undefined });

    it('lets shared caches keep an answer that is the same for everyone, revalidated each time', async () => {
      const first = await service.inject({ method: 'GET', url: LIST });
      expect(first.statusCode).toBe(200);
      expect(first.headers['cache-control']).toBe('no-cache');
      expect(String(first.headers.vary ?? '')).not.toMatch(/Authorization/);
      const again = await service.inject({
        method: 'GET',
        url: LIST,
        headers: { 'if-none-match': String(first.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
    });
  });
