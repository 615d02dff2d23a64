import { resources } from '../examples/demo/resources.js';
import { defineEndpoint, type EndpointPolicy } from '../src/resource/policy.js';
import { defineConfig } from '../src/server/config.js';

/**
 * The service side of the benchmark: the demo's resources, a users endpoint allowing every query of bench/queries.ts, newest
 * first by default (the list users run most; the primary key is appended as the last sort key).
 */
const users: EndpointPolicy = {
  resource: 'users',
  allowedFilters: ['status', 'score', 'name', 'roles.name', 'settings.*'],
  allowedIncludes: ['roles', 'posts'],
  // Q14: each user's newest posts.
  includeConstraints: { posts: { allowedSorts: ['created_at'] } },
  allowedCounts: ['posts'],
  allowedSorts: ['created_at', 'birthday', 'status', 'department.name', 'posts_count'],
  defaultSort: '-created_at',
  perPage: { default: 15, max: 100 },
  aggregates: { allowedAggregates: ['count'], allowedGroupBy: ['status', 'created_at:month'] },
};

/**
 * The same endpoint three times over, but for how a page finds its total (docs/count-strategies.md):
 * `/api/users` counts exactly, `/api/users-upto` counts up to 1,000 rows, `/api/users-estimated` asks
 * the planner.
 */
export default defineConfig({
  resources,
  endpoints: [
    defineEndpoint(users),
    defineEndpoint({ ...users, path: 'users-upto', total: { exactUpTo: 1000 } }),
    defineEndpoint({ ...users, path: 'users-estimated', total: 'estimated' }),
  ],
});
