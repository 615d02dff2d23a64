import { describe, expect, it } from 'vitest';
import { defineEndpoint, Filter } from '../src/resource/policy.js';
import { useService } from './support/service.js';

/**
 * Errors thrown by a configuration that imported another copy of the package (loaded from source
 * next to a built service): recognised by their shape, answered as the client's errors, not 500.
 */
class ForeignFilterValueError extends Error {
  override name = 'FilterValueError';
}
class ForeignRequestError extends Error {
  readonly envelope = { message: 'Sign in first.', errors: { authorization: ['Sign in first.'] } };
  readonly headers = { 'www-authenticate': 'Bearer' };
  readonly status = 401;
}

describe("another copy's errors", () => {
  const svc = useService('sqlite', 'copies', {
    endpoints: [
      defineEndpoint({
        resource: 'users',
        allowedFilters: [
          Filter.custom('picky', () => {
            throw new ForeignFilterValueError('The picky filter takes nothing you can send.');
          }),
        ],
      }),
    ],
    context: (request) => {
      if (request.headers['x-reject']) throw new ForeignRequestError('Sign in first.');
      return { sub: 'test' };
    },
  });

  it('answers a FilterValueError of another copy with 422 on the filter', async () => {
    const res = await svc.get('/api/users?filter[picky]=x');
    expect(res.status).toBe(422);
    expect(res.body.errors['filter.picky']).toEqual(['The picky filter takes nothing you can send.']);
  });

  it('answers a RequestError of another copy with its status, envelope and headers', async () => {
    const res = await svc.inject({ url: '/api/users', headers: { 'x-reject': '1' } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ message: 'Sign in first.', errors: { authorization: ['Sign in first.'] } });
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });
});
