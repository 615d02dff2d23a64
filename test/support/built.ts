import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The package as `npm run build` compiles it (`tsc -p tsconfig.build.json`): `dist/src`, `dist/examples`. */
const dist = join(root, 'dist');

/** The built admin UI (`npm run build:admin`), which the compiled server finds next to dist/. */
const adminDist = join(root, 'admin', 'dist');

/** What tsconfig.build.json compiles and the tests run from dist/ (its bench is not run by tests). */
const sources = ['src', 'examples'];
/** Folders under `sources` that tsconfig.json leaves out: the example apps, which vite builds. */
const notCompiled = new Set([join('examples', 'react-admin'), join('examples', 'refine')]);

/**
 * For a test that runs the compiled package: dist/, checked to be there and no older than any source
 * it compiles. `npm test` builds it once before vitest; a test run on its own after a change to src
 * fails here with what to do, rather than running yesterday's build or compiling a copy of its own.
 */
export function builtPackage(): string {
  const build = 'run npm run build (npm test builds it first)';
  if (!existsSync(join(dist, 'src', 'index.js'))) throw new Error(`dist/ is missing: ${build}.`);
  const stale: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!notCompiled.has(path)) walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const output = join(dist, path.replace(/\.ts$/, '.js'));
        if (!existsSync(output) || statSync(output).mtimeMs < statSync(join(root, path)).mtimeMs)
          stale.push(path);
      }
    }
  };
  for (const dir of sources) walk(dir);
  if (stale.length > 0)
    throw new Error(
      `dist/ is older than ${stale.length} of its sources (${stale.slice(0, 3).join(', ')}): ${build}.`,
    );
  return dist;
}

/** For a test that serves the admin UI: admin/dist, checked to be there. */
export function builtAdmin(): string {
  if (!existsSync(join(adminDist, 'index.html')))
    throw new Error('admin/dist is missing: run npm run build:admin (npm test does it first).');
  return adminDist;
}
