import { describe, expect, it } from 'vitest';
import { resources } from '../../examples/demo/resources.js';
import { checkDefaultFilters } from '../../src/plan/authorize.js';
import { compileEndpoint, defaultsFor } from '../../src/plan/endpoint.js';
import { defineEndpoint, type EndpointPolicy } from '../../src/resource/policy.js';
import { resolveResources } from '../../src/resource/resolve.js';

const registry = resolveResources(resources);
const check = (policy: EndpointPolicy) => () =>
  checkDefaultFilters(compileEndpoint(policy, registry, undefined));

describe('default filters at start-up', () => {
  it('refuses a fixed default the endpoint does not allow, or whose value the filter refuses', () => {
    expect(check({ resource: 'users', allowedFilters: ['status'], defaultFilters: { score: 5 } })).toThrow(
      /invalid defaultFilters/,
    );
    expect(check({ resource: 'users', allowedFilters: ['score'], defaultFilters: { score: 'x' } })).toThrow(
      /invalid defaultFilters/,
    );
  });

  it('refuses the name of a default that depends on the context when it is not allowed; its value waits for a request', () => {
    expect(
      check({ resource: 'users', allowedFilters: ['status'], defaultFilters: { score: () => 5 } }),
    ).toThrow(/invalid defaultFilters.*"score" is not allowed/);
    expect(
      check({ resource: 'users', allowedFilters: ['status'], defaultFilters: { status: () => 'x' } }),
    ).not.toThrow();
  });

  it('gives each context its own default, and none where the function gives undefined', () => {
    const endpoint = compileEndpoint(
      defineEndpoint<{ status?: string } | undefined>({
        resource: 'users',
        allowedFilters: ['status', 'score'],
        defaultFilters: { score: { gte: 10 }, status: (ctx) => ctx?.status },
      }),
      registry,
      undefined,
    );
    expect(defaultsFor(endpoint, { status: 'banned' })).toEqual([
      { name: 'score', raw: { gte: '10' } },
      { name: 'status', raw: 'banned' },
    ]);
    expect(defaultsFor(endpoint, undefined)).toEqual([{ name: 'score', raw: { gte: '10' } }]);
  });
});
