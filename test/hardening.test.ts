import { describe, expect, it } from 'vitest';
import { dialects } from './support/databases.js';
import { useService } from './support/service.js';

for (const dialect of dialects) {
  describe(`nothing a client sends is silently dropped, on ${dialect}`, () => {
    const svc = useService(dialect, 'hardening');

    it('refuses keys named __proto__, constructor or prototype, naming the parameter', async () => {
      const cases: [string, string][] = [
        ['filter[__proto__][status]=active', 'filter.__proto__.status'],
        ['filter[status][__proto__]=x', 'filter.status.__proto__'],
        ['filter[or][__proto__][0][status]=banned', 'filter.or.__proto__.0.status'],
        ['%5F%5Fproto%5F%5F[status]=x', '__proto__.status'],
        ['filter[constructor]=x', 'filter.constructor'],
        ['filter[status][prototype]=x&per_page=2', 'filter.status.prototype'],
        ['filter%5Bstatus%5D%5B__proto__%5D=x', 'filter.status.__proto__'],
      ];
      for (const [query, key] of cases) {
        const res = await svc.get(`/api/users?${query}`);
        expect(res.status, query).toBe(422);
        expect(Object.keys(res.body.errors), query).toEqual([key]);
        expect(res.body.message).toContain('cannot be the name');
      }
    });

    it('still reads such words where they are values', async () => {
      const res = await svc.get(
        '/api/users?filter[name][contains]=__proto__&filter[email][contains]=constructor',
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    });
  });
}

for (const dialect of dialects) {
  describe(`page links and the Host header on ${dialect}`, () => {
    const svc = useService(dialect, 'hosts');
    const trusting = useService(dialect, 'trusted_hosts', { trustedHosts: ['api.example.com'] });

    it('builds links from a plain Host and refuses anything else with the envelope', async () => {
      const ok = await svc.app.inject({
        url: '/api/users?per_page=2',
        headers: { host: 'API.example.com:8080' },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().next_page_url).toBe('http://API.example.com:8080/api/users?per_page=2&page=2');
      for (const host of ['evil.example:1@x', 'a b', 'x/y', 'example.com:99999999', 'example.com.']) {
        const res = await svc.app.inject({ url: '/api/users', headers: { host } });
        expect(res.statusCode, host).toBe(400);
        expect(Object.keys(res.json().errors), host).toEqual(['host']);
        expect(res.body).not.toContain('evil');
      }
    });

    it('with trustedHosts, answers only the hosts it lists', async () => {
      const ok = await trusting.app.inject({ url: '/api/users', headers: { host: 'api.example.com' } });
      expect(ok.statusCode).toBe(200);
      const other = await trusting.app.inject({ url: '/api/users', headers: { host: 'other.example.com' } });
      expect(other.statusCode).toBe(400);
      expect(other.json().errors.host[0]).toContain('other.example.com');
    });
  });
}
