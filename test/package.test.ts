/**
 * The package as a user installs it. `npm pack` runs on a copy of the repository's files with the build
 * `npm test` made before the suites (dist/ and admin/dist, checked to be no older than their sources:
 * what `prepack` would build again); the tarball is installed into a new project in a
 * temporary folder that shares nothing with the repository (its own node_modules; nothing of the
 * repository's on the resolution path), on this machine's Node. Then it is used the ways the README
 * shows: the installed command (`init` on a SQLite database written here, then serving the file init
 * wrote, unchanged), and the Fastify and Express entry points in TypeScript applications, type-checked by
 * tsc (strict, declarations included) against the installed `.d.ts` files, built and answering.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtAdmin, builtPackage } from './support/built.js';
import {
  exitCode,
  getOnce,
  killLeftOver,
  type Started,
  servingAddress,
  startCommand,
  waitUntil,
} from './support/command.js';
import { codeBlocks } from './support/docs-shown.js';

const run = promisify(execFile);
const repository = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// better-sqlite3 is built from source when installed (no prebuilt binary can be downloaded here):
// node-gyp wants this Node's headers, which .ci/run points npm at the same way.
const npmEnv = {
  ...process.env,
  npm_config_nodedir: process.env.npm_config_nodedir ?? dirname(dirname(process.execPath)),
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

/** What a user needs, and only that: the build of src and of the demo, the admin, the README and the guide. */
const shipped = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^dist\/src\//,
  /^dist\/examples\//,
  /^admin\/dist\//,
  /^docs\/[\w.-]+\.(md|png)$/,
];
/** What no user needs: tests, benchmarks, profiles, the admin's sources, the project's own tooling. */
const neverShipped =
  /(^|\/)(test|tests|bench|coverage|scratch|\.ci)\/|\.test\.|isolate-.*\.log|\.cpuprofile|^admin\/src\//;

/** The ```ts blocks of a document that are whole modules, named by their first line (`// server.ts`). */
function typescriptModules(document: string): { name: string; where: string; code: string }[] {
  return codeBlocks(document, 'ts').flatMap((block) => {
    const name = /^\/\/ ([\w.-]+\.ts)$/.exec(block.code.split('\n')[0] ?? '')?.[1];
    return name === undefined ? [] : [{ name, ...block }];
  });
}

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

describe('the package, packed and installed into a project of its own', () => {
  let work = '';
  let app = '';
  let packed: Packed;
  let install = '';
  const children: Started['child'][] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'rqs-package-'));
    // The repository's files as git sees them (committed or not, never ignored), and the build npm test
    // made: packed without `prepack` (`npm run build`), which would compile the same files again.
    const source = join(work, 'source');
    const { stdout: listed } = await run(
      'git',
      ['ls-files', '--cached', '--others', '--exclude-standard', '-z'],
      {
        cwd: repository,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    for (const file of listed.split('\0').filter((name) => name !== '' && existsSync(join(repository, name))))
      cpSync(join(repository, file), join(source, file));
    const dist = builtPackage();
    for (const built of ['src', 'examples'])
      cpSync(join(dist, built), join(source, 'dist', built), { recursive: true });
    cpSync(builtAdmin(), join(source, 'admin', 'dist'), { recursive: true });
    const { stdout: packOutput } = await run(
      npm,
      ['pack', '--json', '--ignore-scripts', '--pack-destination', work],
      {
        cwd: source,
        env: npmEnv,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    packed = (JSON.parse(packOutput) as Packed[])[0] as Packed;

    app = join(work, 'app');
    cpSync(join(repository, 'test/fixtures/installed-app'), app, { recursive: true });
    const shop = new Database(join(app, 'shop.db'));
    shop.exec(`
      create table customers (id integer primary key, name text not null, email text);
      create table orders (
        id integer primary key,
        customer_id integer not null references customers(id),
        total numeric(10, 2) not null,
        placed_at text not null
      );
      insert into customers (id, name, email) values (1, 'Ada', 'ada@example.com'), (2, 'Grace', null);
      insert into orders (id, customer_id, total, placed_at) values
        (1, 1, 12.50, '2026-01-02 10:00:00'), (2, 1, 7.25, '2026-02-03 11:30:00'), (3, 2, 99.00, '2026-03-04 09:15:00');
    `);
    shop.close();
    const installed = await run(npm, ['install', join(work, packed.filename)], {
      cwd: app,
      env: npmEnv,
      maxBuffer: 16 * 1024 * 1024,
    });
    install = `${installed.stdout}\n${installed.stderr}`;
  }, 900_000);

  afterAll(() => {
    killLeftOver(children);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('holds what a user needs and nothing else', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths.filter((path) => !shipped.some((pattern) => pattern.test(path)))).toEqual([]);
    expect(paths.filter((path) => neverShipped.test(path))).toEqual([]);
    for (const needed of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/cli/main.js',
      'dist/src/hosts/fastify.d.ts',
      'dist/src/hosts/express.d.ts',
      'admin/dist/index.html',
    ])
      expect(paths).toContain(needed);
    // The README's links into the guide (and its screenshot) resolve in the package as installed.
    const readme = readFileSync(join(repository, 'README.md'), 'utf8');
    const guide = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1] as string);
    expect(guide.length).toBeGreaterThan(10);
    expect(guide.filter((path) => !paths.includes(path))).toEqual([]);
    console.log(
      `${packed.filename}: ${packed.files.length} files, ${(packed.size / 1024).toFixed(0)} kB packed, ${(packed.unpackedSize / 1024).toFixed(0)} kB unpacked`,
    );
  });

  it('installs on this Node without a warning about engines, in a tree npm finds whole', async () => {
    // npm checks every package's `engines` against this Node as it installs, and warns (EBADENGINE).
    // The one expected here is cookie 2 (light-my-request 6.8, Fastify's): it declares Node 22 and
    // loads from Node 20.19, as the README says; any other is a package the declared range does not fit.
    const refused = [...install.matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map((match) => match[1]);
    expect(refused.filter((name) => !name?.startsWith('cookie@2.'))).toEqual([]);
    expect(install).not.toMatch(/ERESOLVE/);
    // A copy in the project's own node_modules, not a link back into the repository.
    const installed = join(app, 'node_modules', 'resource-query-service');
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(installed.startsWith(repository + sep)).toBe(false);
    // `npm ls` exits non-zero on a missing, extraneous or invalid package anywhere in the tree.
    await run(npm, ['ls', '--all'], { cwd: app, env: npmEnv, maxBuffer: 16 * 1024 * 1024 });
  });

  it('runs init on a SQLite database, then serves the file init wrote, unchanged: a list, a record, the schema index, the admin', async () => {
    const bin = join(app, 'node_modules', '.bin', 'resource-query-service');
    const init = startCommand(['init', '--database-url', 'sqlite:./shop.db'], {}, { command: bin, cwd: app });
    children.push(init.child);
    expect(await exitCode(init), init.output()).toBe(0);
    const written = readFileSync(join(app, 'rqs.config.ts'), 'utf8');
    expect(written).toContain("from 'resource-query-service'");

    const served = startCommand(
      ['--config', 'rqs.config.ts', '--port', '0'],
      { DATABASE_URL: 'sqlite:./shop.db' },
      { command: bin, cwd: app },
    );
    children.push(served.child);
    const base = await servingAddress(served);
    const list = await getOnce(`${base}/api/customers?sort=name`);
    expect(list.status, list.body).toBe(200);
    expect((JSON.parse(list.body) as { data: { name: string }[] }).data.map((row) => row.name)).toEqual([
      'Ada',
      'Grace',
    ]);
    const order = await getOnce(`${base}/api/orders/2?include=customer`);
    expect(order.status, order.body).toBe(200);
    expect(JSON.parse(order.body)).toMatchObject({ id: 2, customer_id: 1, customer: { name: 'Ada' } });
    const index = await getOnce(`${base}/api/v1/schema`);
    expect(index.status, index.body).toBe(200);
    expect(index.body).toContain('customers');
    expect(index.body).toContain('orders');
    const admin = await getOnce(`${base}/admin/`);
    expect(admin.status).toBe(200);
    expect(admin.body).toContain('<div id="root">');
    expect(readFileSync(join(app, 'rqs.config.ts'), 'utf8')).toBe(written);
    expect(await exitCode(served, 'SIGTERM')).toBe(0);
  });

  it('type-checks a Fastify and an Express application with tsc (strict, declarations included) against the installed .d.ts files', async () => {
    // They import the configuration init wrote in the test above.
    if (!existsSync(join(app, 'rqs.config.ts')))
      throw new Error('rqs.config.ts is written by the init test above');
    await run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: app,
    }).catch((failure: { stdout?: string }) => {
      throw new Error(`tsc refused the applications:\n${failure.stdout}`);
    });
    expect(existsSync(join(app, 'build/fastify-server.js'))).toBe(true);
    expect(existsSync(join(app, 'build/express-server.js'))).toBe(true);
  }, 180_000); // tsc takes its time on a busy machine: the test waits for its verdict, not for a clock.

  it("type-checks the guide's applications as written: the README's and docs/hosts.md's Fastify, Express and Hono servers, each with docs/security-and-tenancy.md's tenancy.ts, and docs/configuration.md's configuration", async () => {
    const examples = [
      ...typescriptModules('README.md').filter((module) => module.name === 'server.ts'),
      ...typescriptModules('docs/hosts.md').filter((module) => module.name === 'server.ts'),
    ];
    const tenancy = typescriptModules('docs/security-and-tenancy.md').find(
      (module) => module.name === 'tenancy.ts',
    );
    if (!tenancy) throw new Error('docs/security-and-tenancy.md has no // tenancy.ts block');
    // docs/configuration.md's whole configuration module, with the one function it leaves to the reader.
    const configuration = codeBlocks('docs/configuration.md', 'ts').find(({ code }) =>
      code.startsWith('import {'),
    );
    if (!configuration) throw new Error('docs/configuration.md shows no configuration module');
    // The README's Fastify server, and docs/hosts.md's Fastify, Express and Hono ones (its Next.js route
    // needs Next.js, which this project does not install).
    expect(examples.map((module) => module.where)).toHaveLength(4);
    // Two programs, side by side: the servers that augment Fastify's request type each with its own
    // AppUser cannot share one, the others can (a tsc run costs more than its files).
    const augmentsFastify = (code: string) => code.includes("declare module 'fastify'");
    const programs: (typeof examples)[] = [];
    for (const example of examples) {
      const program = programs.find(
        (modules) =>
          !augmentsFastify(example.code) || !modules.some((module) => augmentsFastify(module.code)),
      );
      if (program) program.push(example);
      else programs.push([example]);
    }
    expect(programs).toHaveLength(2);
    const checks = programs.map(async (modules, index) => {
      const folder = join(app, 'guide', String(index));
      mkdirSync(folder, { recursive: true });
      modules.forEach((module, at) => {
        writeFileSync(join(folder, `server-${at}.ts`), module.code);
      });
      writeFileSync(join(folder, 'tenancy.ts'), tenancy.code);
      if (index === 0)
        writeFileSync(
          join(folder, 'configuration.ts'),
          `${configuration.code}\ndeclare function sessionUser(headers: unknown): AppContext;\n`,
        );
      writeFileSync(
        join(folder, 'tsconfig.json'),
        JSON.stringify({
          extends: '../../tsconfig.json',
          compilerOptions: { noEmit: true, skipLibCheck: true },
          include: ['*.ts'],
        }),
      );
      await run(
        process.execPath,
        [join(app, 'node_modules/typescript/bin/tsc'), '-p', join(folder, 'tsconfig.json')],
        {
          cwd: app,
        },
      ).catch((failure: { stdout?: string }) => {
        const checked = [...modules.map((module) => module.where), tenancy.where];
        if (index === 0) checked.push(configuration.where);
        throw new Error(`tsc refused ${checked.join(', ')}:\n${failure.stdout}`);
      });
    });
    await Promise.all(checks);
  }, 180_000);

  it.each(['fastify', 'express'])(
    'serves the service inside the %s application, beside its own route',
    async (host) => {
      const started = startCommand(
        [],
        { DATABASE_URL: 'sqlite:./shop.db' },
        { command: join(app, `build/${host}-server.js`), cwd: app },
      );
      children.push(started.child);
      await waitUntil(started, 'listening', (output) => /listening on http:\/\/\S+/.test(output));
      const base = /listening on (http:\/\/\S+)/.exec(started.output())?.[1] as string;
      const own = await getOnce(`${base}/host/health`);
      expect(JSON.parse(own.body)).toEqual({ ok: host });
      const list = await getOnce(`${base}/api/orders?sort=-total&filter[customer.name]=Ada`);
      expect(list.status, list.body).toBe(200);
      expect((JSON.parse(list.body) as { data: { id: number }[] }).data.map((row) => row.id)).toEqual([1, 2]);
    },
  );
});
