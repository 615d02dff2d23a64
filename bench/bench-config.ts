import { resources } from '../examples/demo/resources.js';
import { defineConfig, defineEndpoint } from '../src/resource/policy.js';

/** The service side of the benchmark: the demo's resources, one users endpoint allowing Q1–Q9. */
export default defineConfig({
  resources,
  endpoints: [
    defineEndpoint({
      resource: 'users',
      allowedFilters: ['status', 'score', 'name', 'roles.name', 'settings.*'],
      allowedIncludes: ['roles'],
      allowedCounts: ['posts'],
      perPage: { default: 15, max: 100 },
    }),
  ],
});
