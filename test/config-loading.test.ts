import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/cli/load-config.js';
import { createService } from '../src/core/service.js';
import { ConfigurationError } from '../src/errors/configuration-error.js';
import { FilterValueError } from '../src/index.js';
import { connect } from '../src/sql/connect.js';
import { builtPackage } from './support/built.js';

const repository = dirname(dirname(fileURLToPath(import.meta.url)));

/** `from '…'` for the repository's public entry (src/index.ts), relative to `dir`, as a user's project would write it. */
const packageFrom = (dir: string) => relative(dir, join(repository, 'src/index.js')).split('\\').join('/');

/** A configuration with types TypeScript alone understands (an interface, annotations). */
const typedConfig = (from: string) => `
import { defineConfig, defineResource } from '${from}';

interface Shape { table: string; columns: Record<string, 'integer' | 'string'> }
const shape: Shape = { table: 'items', columns: { id: 'integer', name: 'string' } };
const items = defineResource({ name: 'items', ...shape });
type Paths = readonly string[];
const examples: Paths = ['/api/items'];

export default defineConfig({
  resources: [items],
  endpoints: [{ resource: 'items', allowedFilters: ['name'] as string[] }],
  examples: [...examples],
});
`;

describe('loading a configuration module', () => {
  let dir: string;
  const write = (name: string, text: string): string => {
    const file = join(dir, name);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rqs-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads a .ts file with types, importing the package’s source by relative path', async () => {
    const file = write('rqs.config.ts', typedConfig(packageFrom(dir)));
    const config = await loadConfig(file);
    expect(config.resources.map((resource) => resource.name)).toEqual(['items']);
    expect(config.examples).toEqual(['/api/items']);
    // The path may be relative to the working directory, as on the command line.
    expect((await loadConfig(relative(process.cwd(), file))).resources).toHaveLength(1);
    // jiti compiles the package's sources on a fresh clone (its cache is empty): on a busy machine that
    // took more than 30 s. The test waits for the load, not for a clock.
  }, 180_000);

  it('loads .mts and .cts files (export default, and export =)', async () => {
    const mts = await loadConfig(write('rqs.config.mts', typedConfig(packageFrom(dir))));
    expect(mts.resources).toHaveLength(1);
    const cts = await loadConfig(
      write(
        'rqs.config.cts',
        `interface Config { resources: unknown[]; endpoints: unknown[] }
const config: Config = { resources: [], endpoints: [] };
export = config;`,
      ),
    );
    expect(cts).toEqual({ resources: [], endpoints: [] });
    const ctsDefault = await loadConfig(
      write('default.cts', `const n: number = 1;\nexport default { resources: [], endpoints: [], n };`),
    );
    expect(ctsDefault).toEqual({ resources: [], endpoints: [], n: 1 });
  });

  it('loads .js and .mjs files with Node’s own import()', async () => {
    write('esm/package.json', '{ "type": "module" }');
    const js = await loadConfig(
      write('esm/rqs.config.js', 'export default { resources: [], endpoints: [] };'),
    );
    expect(js).toEqual({ resources: [], endpoints: [] });
    const mjs = await loadConfig(write('rqs.config.mjs', 'export default { resources: [], endpoints: [] };'));
    expect(mjs).toEqual({ resources: [], endpoints: [] });
  });

  it("resolves 'resource-query-service' to the running copy: its FilterValueError is the service's", async () => {
    write(
      'pkg/resources.ts',
      `import { defineResource } from 'resource-query-service';
export const items = defineResource({ name: 'items', table: 'items', columns: { id: 'integer', name: 'string' } });`,
    );
    const file = write(
      'pkg/rqs.config.ts',
      `import { defineConfig, Filter, FilterValueError } from 'resource-query-service';
import type { ServiceConfig } from 'resource-query-service';
import { items } from './resources.js';

const config: ServiceConfig = defineConfig({
  resources: [items],
  endpoints: [{
    resource: 'items',
    allowedFilters: [Filter.custom('starts', ({ eb, column, value }) => {
      if (typeof value !== 'string') throw new FilterValueError('starts takes one prefix.');
      return eb(column('name'), 'like', value + '%');
    })],
  }],
});
export default config;`,
    );
    const config = await loadConfig(file);
    const connection = connect(`sqlite:${join(dir, 'pkg.db')}`);
    try {
      await connection.db.schema
        .createTable('items')
        .addColumn('id', 'integer', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .execute();
      await connection.db.insertInto('items').values({ id: 1, name: 'one' }).execute();
      const service = await createService({ config, connection });
      const get = (url: string) => service.handle({ method: 'GET', url, headers: { host: 'localhost' } });
      expect((await get('/api/items?filter[starts]=o'))?.status).toBe(200);
      // Thrown by the configuration's FilterValueError, recognized by the service's: 422, not 500.
      const refused = await get('/api/items?filter[starts][]=o');
      expect(refused?.status).toBe(422);
      expect(JSON.parse(refused?.body as string).message).toBe('starts takes one prefix.');
    } finally {
      await connection.db.destroy();
    }
    // The same class, not a copy.
    const custom = config.endpoints[0]?.allowedFilters?.[0];
    expect(typeof custom).toBe('object');
    expect(() => (custom as { callback: (args: unknown) => unknown }).callback({ value: ['x'] })).toThrow(
      FilterValueError,
    );
  });

  it("resolves 'resource-query-service' inside this repository to the running copy, not to the build package.json exports point at", async () => {
    // test-artifacts/ is git-ignored.
    mkdirSync(join(repository, 'test-artifacts'), { recursive: true });
    const inside = mkdtempSync(join(repository, 'test-artifacts', 'config-'));
    try {
      writeFileSync(
        join(inside, 'rqs.config.ts'),
        `import { defineConfig, FilterValueError } from 'resource-query-service';
export default { ...defineConfig({ resources: [], endpoints: [] }), marker: FilterValueError };`,
      );
      // The same class, whether dist/ is built (npm test builds it first) or not.
      const config = (await loadConfig(join(inside, 'rqs.config.ts'))) as unknown as { marker: unknown };
      expect(config.marker).toBe(FilterValueError);
    } finally {
      rmSync(inside, { recursive: true, force: true });
    }
  });

  it('loads the demo configuration from its TypeScript source (import.meta.url, .js specifiers of .ts files)', async () => {
    const config = await loadConfig(join(repository, 'examples/demo/config.ts'));
    expect(config.resources.map((resource) => resource.name)).toContain('users');
    expect(config.endpoints.length).toBeGreaterThan(0);
    expect(typeof config.setup).toBe('function');
  }, 180_000);

  describe('refuses with a message naming the file', () => {
    const refusal = async (path: string): Promise<string> => {
      const error = await loadConfig(path).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      return (error as Error).message;
    };

    it('a file that does not exist', async () => {
      expect(await refusal(join(dir, 'missing.ts'))).toBe(
        `Configuration file ${join(dir, 'missing.ts')} not found (looked for ${join(dir, 'missing.ts')}).`,
      );
      expect(await refusal(dir)).toContain('is not a file');
    });

    it('an extension it cannot load', async () => {
      expect(await refusal(write('rqs.config.json', '{}'))).toContain(
        '".json" files cannot be loaded; use .ts, .mts, .cts, .js, .mjs or .cjs.',
      );
    });

    it('a module without a default export', async () => {
      const file = write('named.ts', 'export const resources: string[] = [];\nexport const endpoints = [];');
      expect(await refusal(file)).toBe(
        `Configuration ${file} has no default export (use export default defineConfig({ resources, endpoints })).`,
      );
      expect(await refusal(write('named.mjs', 'export const resources = [];'))).toContain(
        'has no default export',
      );
    });

    it('a default export that is not a configuration', async () => {
      const file = write('partial.ts', 'export default { resources: [] as string[], port: 3000 };');
      expect(await refusal(file)).toBe(
        `Configuration ${file}: the default export is not a configuration (it has resources, port); expected an object with resources and endpoints arrays, as export default defineConfig({ resources, endpoints }) gives.`,
      );
      expect(
        await refusal(write('function.ts', 'export default () => ({ resources: [], endpoints: [] });')),
      ).toContain('it is a function; export the configuration object itself');
      expect(await refusal(write('string.mts', "export default 'config';"))).toContain('(it is a string)');
    });

    it('a file that does not compile, or throws', async () => {
      const broken = write('broken.ts', 'const x: number = ;\nexport default x;');
      const message = await refusal(broken);
      expect(message).toMatch(new RegExp(`^Configuration ${broken} could not be loaded: `));
      expect(message).toContain(`${broken}:1:`);
      expect(await refusal(write('throws.ts', "throw new Error('DATABASE_SCHEMA is not set');"))).toBe(
        `Configuration ${join(dir, 'throws.ts')} could not be loaded: DATABASE_SCHEMA is not set`,
      );
    });
  });
});

describe('the command, built, with a TypeScript configuration', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rqs-cli-'));
  });
  afterAll(() => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs dist/src/cli/main.js; resolves with its output once `until` matches it, or when it exits. */
  const run = (args: string[], until?: RegExp, database = `sqlite:${join(dir, 'cli.db')}`) =>
    new Promise<{ output: string; code: number | null }>((resolve, reject) => {
      const started = spawn(process.execPath, [join(builtPackage(), 'src/cli/main.js'), ...args], {
        cwd: repository,
        env: { ...process.env, DATABASE_URL: database, LOG_LEVEL: 'warn' },
      });
      children.push(started);
      let output = '';
      // The bound only tells a hang from a slow start while the suite loads both cores.
      const timer = setTimeout(() => reject(new Error(`no answer in 150 s:\n${output}`)), 150_000);
      const collect = (chunk: Buffer) => {
        output += chunk.toString();
        if (until?.test(output)) {
          clearTimeout(timer);
          resolve({ output, code: null });
        }
      };
      started.stdout.on('data', collect);
      started.stderr.on('data', collect);
      started.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ output, code });
      });
    });

  it('serves the configuration a .ts file exports', async () => {
    const file = join(dir, 'rqs.config.ts');
    writeFileSync(
      file,
      `import { defineConfig, defineResource } from 'resource-query-service';
interface Item { id: number; name: string }
const rows: Item[] = [{ id: 1, name: 'one' }, { id: 2, name: 'two' }];

export default defineConfig({
  resources: [defineResource({ name: 'items', table: 'items', columns: { id: 'integer', name: 'string' } })],
  endpoints: [{ resource: 'items', allowedFilters: ['name'] }],
  async setup({ db }) {
    await db.schema.createTable('items').ifNotExists()
      .addColumn('id', 'integer', (column) => column.primaryKey())
      .addColumn('name', 'text', (column) => column.notNull())
      .execute();
    await db.deleteFrom('items').execute();
    await db.insertInto('items').values(rows).execute();
  },
});`,
    );
    const serving = /Serving 1 endpoints on (http:\/\/\S+) \(/;
    const { output } = await run(['--config', file, '--port', '0'], serving);
    const address = serving.exec(output)?.[1];
    expect(address, output).toBeDefined();
    const response = await fetch(`${address}/api/items?filter[name]=two`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown }).data).toEqual([{ id: 2, name: 'two' }]);
    children.at(-1)?.kill('SIGTERM');
  }, 180_000);

  it('refuses a SQLite file that is not there without creating it, and names the database a mismatch is about', async () => {
    const file = join(dir, 'no-setup.config.ts');
    writeFileSync(
      file,
      `import { defineConfig, defineResource } from 'resource-query-service';
export default defineConfig({
  resources: [defineResource({ name: 'items', table: 'items', columns: { id: 'integer', name: 'string' } })],
  endpoints: [{ resource: 'items' }],
});`,
    );
    const missing = join(dir, 'mistyped.db');
    const absent = await run(['--config', file, '--port', '0'], undefined, `sqlite:${missing}`);
    expect(absent.code, absent.output).toBe(1);
    expect(absent.output).toContain(
      `The SQLite database ${missing} does not exist (database: sqlite:${missing})`,
    );
    expect(existsSync(missing)).toBe(false);

    const empty = join(dir, 'empty.db');
    new Database(empty).close();
    const mismatch = await run(['--config', file, '--port', '0'], undefined, `sqlite:${empty}`);
    expect(mismatch.code, mismatch.output).toBe(1);
    expect(mismatch.output).toContain('"items"');
    expect(mismatch.output).toContain(`(database: sqlite:${empty})`);
  }, 360_000);

  it('stops with the loader’s message when the file is missing', async () => {
    const { output, code } = await run(['--config', 'no-such.config.ts']);
    expect(code).toBe(1);
    expect(output).toContain('Configuration file no-such.config.ts not found');
  }, 180_000);
});
