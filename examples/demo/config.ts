import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '../../src/server/config.js';
import { type DemoContext, demoContext } from './auth.js';
import { endpoints } from './endpoints.js';
import { resources } from './resources.js';
import { createChangeLog, createSchema, dropSchema } from './schema.js';
import { isSeeded, seedDemo } from './seed.js';

// The built admin UI (npm run build:admin → admin/dist), found from examples/demo or dist/examples/demo.
const adminDir = ['../../admin/dist/', '../../../admin/dist/']
  .map((path) => fileURLToPath(new URL(path, import.meta.url)))
  .find((path) => existsSync(`${path}index.html`));

/** The demo: `npm start` serves it on an embedded SQLite file, filled on first run. */
export default defineConfig<DemoContext>({
  resources,
  endpoints,
  context: demoContext,
  ...(adminDir ? { adminDir } : {}),
  // Live lists (docs/live.md): the admin's open lists and records follow every write.
  live: {},
  async setup(connection) {
    // A demo database made before live streams gets their change log too.
    await createChangeLog(connection);
    if (await isSeeded(connection)) return;
    // Start clean: a run interrupted while seeding leaves tables without users behind.
    await dropSchema(connection);
    await createSchema(connection);
    await seedDemo(connection);
  },
  examples: [
    '/api/users?filter[status]=active&filter[score][gte]=80&sort=-score',
    '/api/users?filter[roles.name]=editor&include=roles&count=posts',
    '/api/users?filter[or][0][status]=banned&filter[or][1][score][gte]=95',
    '/api/users?filter[settings.theme]=dark&filter[settings.level][gte]=5',
    '/api/users?filter[created_at][year]=2024&pagination=simple',
    '/api/posts?filter[meta.featured]=true&include=author&pagination=cursor&per_page=5',
    '/api/users?filter[name][contains]=ann&filter[trashed]=true',
    '/api/users?filter[email_domain]=example.org&filter[admins]=true&include=department',
  ],
});
