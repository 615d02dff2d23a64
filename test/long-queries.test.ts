import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { resources } from '../examples/demo/resources.js';
import { fetchList, LONG_QUERY } from '../src/client/calls.js';
import { createExpressMiddleware } from '../src/hosts/express.js';
import {
  serviceTargets,
  type TestService,
  targetName,
  testEndpoints,
  useService,
} from './support/service.js';

/**
 * A query too long for a URL goes in the body: `POST <list>/query` with `{"query": …}` (JSON, which a
 * cross-site form cannot send), or `QUERY <list>` with the query string as the body. Same whitelist,
 * same answer, same links as the URL form.
 */

const QUERY = 'filter[status]=active&sort=-score,name&per_page=3&page=2';
const json = { 'content-type': 'application/json' };

/** The query in a body: `POST /api/users/query`, or `QUERY /api/users`. */
const inBody = (
  service: TestService,
  method: 'POST' | 'QUERY',
  payload: unknown,
  headers: Record<string, string> = json,
) => service.inject({ method, url: method === 'POST' ? '/api/users/query' : '/api/users', headers, payload });

for (const target of serviceTargets) {
  describe(`long queries on ${targetName(target)}`, () => {
    const service = useService(target.dialect, 'long_queries', {}, target.host);
    const viaUrl = () => service.inject({ method: 'GET', url: `/api/users?${QUERY}` });

    it('answers POST <list>/query exactly as the URL form, links included', async () => {
      const expected = await viaUrl();
      expect(expected.statusCode).toBe(200);
      const res = await inBody(service, 'POST', { query: QUERY });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual(expected.json());
      // A leading "?" is the query string's, not part of it.
      const withMark = await inBody(service, 'POST', { query: `?${QUERY}` });
      expect(withMark.json()).toEqual(expected.json());
    });

    it('holds a body query to the same whitelist and limits, keyed as in the URL', async () => {
      const res = await inBody(service, 'POST', { query: 'filter[password]=x&sort=email' });
      expect(res.statusCode).toBe(422);
      const url = await service.inject({ method: 'GET', url: '/api/users?filter[password]=x&sort=email' });
      expect(res.json()).toEqual(url.json());
    });

    it('refuses what a cross-site form can send, and a query in both places', async () => {
      for (const type of [
        'application/x-www-form-urlencoded',
        'text/plain',
        'multipart/form-data; boundary=x',
      ]) {
        const res = await service.inject({
          method: 'POST',
          url: '/api/users/query',
          headers: { 'content-type': type },
          payload: `query=${encodeURIComponent(QUERY)}`,
        });
        expect(res.statusCode, type).toBe(415);
        expect(res.json().errors.body[0]).toMatch(/application\/json/);
      }
      const both = await service.inject({
        method: 'POST',
        url: '/api/users/query?page=1',
        headers: json,
        payload: { query: QUERY },
      });
      expect(both.statusCode).toBe(422);
      expect(Object.keys(both.json().errors)).toEqual(['query']);
      for (const payload of [{}, { query: 7 }, [QUERY], { query: QUERY, sort: 'name' }]) {
        const res = await inBody(service, 'POST', payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(422);
        expect(Object.keys(res.json().errors)).toEqual(['body']);
      }
    });

    it('serves <list>/query before the record whose key would be "query", as OpenAPI matches paths', async () => {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const res = await service.inject({
          method,
          url: '/api/users/query',
          ...(method === 'GET' ? {} : { headers: json, payload: {} }),
        });
        expect(res.statusCode, method).toBe(405);
        expect(res.headers.allow).toBe('POST');
      }
    });
  });
}

for (const target of serviceTargets)
  describe(`the QUERY method on ${targetName(target)}`, () => {
    const service = useService(target.dialect, 'query_method', {}, target.host);

    it('answers QUERY with the query string as a form-encoded body, or as JSON, as GET does', async () => {
      const expected = await service.inject({ method: 'GET', url: `/api/users?${QUERY}` });
      const form = await inBody(service, 'QUERY', QUERY, {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(form.statusCode, form.body).toBe(200);
      expect(form.json()).toEqual(expected.json());
      const asJson = await inBody(service, 'QUERY', { query: QUERY });
      expect(asJson.json()).toEqual(expected.json());
      // A safe method: its answer has the validators a GET's has.
      expect(form.headers.etag).toBe(expected.headers.etag);
    });
  });

describe('the client sends a long query in the body', () => {
  const service = useService('sqlite', 'long_client');

  it('uses POST <list>/query past LONG_QUERY characters, with the answer the URL gives', async () => {
    const seen: string[] = [];
    // 100 values (the list limit) of 27 characters: a query string past LONG_QUERY.
    const names = Array.from(
      { length: 100 },
      (_, i) => `nobody-is-called-this-${String(i).padStart(4, '0')}`,
    );
    // The query string is past the threshold: the test checks the body path, not the URL's.
    expect(names.join(',').length).toBeGreaterThan(LONG_QUERY);
    const fetcher: typeof fetch = async (input, init) => {
      const url = String(input);
      seen.push(`${init?.method ?? 'GET'} ${url.split('?')[0]}`);
      const res = await service.inject({
        method: init?.method ?? 'GET',
        url,
        ...(init?.headers ? { headers: init.headers as Record<string, string> } : {}),
        ...(init?.body ? { payload: String(init.body) } : {}),
      });
      return new Response(res.body, {
        status: res.statusCode,
        headers: { 'content-type': 'application/json' },
      });
    };
    const answer = await fetchList(
      '/api/users',
      { filter: [{ name: 'name', op: 'not_in', value: names }], per_page: 5 },
      { fetch: fetcher },
    );
    expect(seen).toEqual(['POST /api/users/query']);
    const short = await fetchList('/api/users', { per_page: 5 }, { fetch: fetcher });
    expect(seen[1]).toBe('GET /api/users');
    // No user has those names: the same records and total; only the links differ (they keep the query).
    expect(answer).toMatchObject({
      data: (short as { data: unknown[] }).data,
      total: (short as { total: number }).total,
    });
  });
});

describe('a QUERY body an Express application parsed first', () => {
  const service = useService('sqlite', 'long_express', { context: undefined });

  it('is refused with what to send instead, and its JSON form is served', async () => {
    const app = express();
    app.use(express.urlencoded({ extended: true }), express.json());
    app.use(
      await createExpressMiddleware({
        config: { resources, endpoints: testEndpoints },
        connection: service.conn,
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const form = await fetch(`http://127.0.0.1:${port}/api/users`, {
        method: 'QUERY',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: QUERY,
      });
      expect(form.status).toBe(415);
      expect(((await form.json()) as { errors: { body: string[] } }).errors.body[0]).toMatch(
        /application\/json/,
      );
      const asJson = await fetch(`http://127.0.0.1:${port}/api/users`, {
        method: 'QUERY',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: QUERY }),
      });
      expect(asJson.status).toBe(200);
      const viaUrl = await fetch(`http://127.0.0.1:${port}/api/users?${QUERY}`);
      expect(await asJson.json()).toEqual(await viaUrl.json());
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
