import { defineEndpoint, defineResource } from '../src/resource/policy.js';
import { defineConfig } from '../src/server/config.js';

/** The table of the all=true streaming benchmark: one million narrow rows. */
export const items = defineResource({
  name: 'items',
  table: 'bench_items',
  columns: { id: 'integer', name: 'string', score: 'integer', created_at: 'datetime' },
});

export default defineConfig({
  resources: [items],
  endpoints: [
    defineEndpoint({
      resource: 'items',
      allowAll: 'unlimited',
      allowedFilters: ['score'],
      response: (item) => ({ id: item.id, name: item.name, score: item.score }),
    }),
  ],
});
