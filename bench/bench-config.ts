import { resources } from '../examples/demo/resources.js';
import { defineConfig, defineEndpoint } from '../src/resource/policy.js';

/**
 * The service side of the benchmark: the demo's resources, one users endpoint allowing Q1–Q11, newest
 * first by default (the list users run most; the primary key is appended as the last sort key).
 */
export default defineConfig({
  resources,
  endpoints: [
    defineEndpoint({
      resource: 'users',
      allowedFilters: ['status', 'score', 'name', 'roles.name', 'settings.*'],
      allowedIncludes: ['roles'],
      allowedCounts: ['posts'],
      allowedSorts: ['created_at', 'birthday', 'status'],
      defaultSort: '-created_at',
      perPage: { default: 15, max: 100 },
    }),
  ],
});
