import { statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigurationError } from '../errors/configuration-error.js';
import * as self from '../index.js';
import type { StandaloneConfig } from '../server/config.js';

/** Loaded by jiti (TypeScript compiled in memory, no build step). */
const typescript = new Set(['.ts', '.mts', '.cts']);
/** Loaded by Node's own `import()`. */
const javascript = new Set(['.js', '.mjs', '.cjs']);

/**
 * Loads the configuration module at `path` (relative to the working directory) and returns its default
 * export. JavaScript files are imported by Node; TypeScript files (`.ts`, `.mts`, `.cts`) through jiti,
 * which strips the types in memory — no build, no tsconfig needed. Inside a TypeScript configuration,
 * `import … from 'resource-query-service'` is this very copy of the package (the one running the
 * command): its classes (`FilterValueError`, `RequestError`) are the ones the service recognizes, and it
 * resolves even where the package is not installed next to the file (a global install, this
 * repository without a build). Any failure is a `ConfigurationError` naming the file.
 */
export async function loadConfig(path: string): Promise<StandaloneConfig> {
  const file = resolve(path);
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) throw new ConfigurationError(`Configuration file ${path} not found (looked for ${file}).`);
  if (!stat.isFile()) throw new ConfigurationError(`Configuration ${path} is not a file (${file}).`);
  const extension = extname(file).toLowerCase();
  if (!typescript.has(extension) && !javascript.has(extension))
    throw new ConfigurationError(
      `Configuration ${path}: ${extension ? `"${extension}" files` : 'files without an extension'} cannot be loaded; use .ts, .mts, .cts, .js, .mjs or .cjs.`,
    );

  let module: Record<string, unknown>;
  try {
    module = typescript.has(extension)
      ? await importTypeScript(file)
      : await import(pathToFileURL(file).href);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigurationError(`Configuration ${path} could not be loaded: ${reason}`, { cause: error });
  }
  // A .cts file's `export = config` is the module itself (Node's import() makes a .cjs file's
  // `module.exports` its default on its own).
  const exported = 'default' in module ? module.default : extension === '.cts' ? module : undefined;
  if (exported === undefined)
    throw new ConfigurationError(
      `Configuration ${path} has no default export (use export default defineConfig({ resources, endpoints })).`,
    );
  if (!isConfig(exported))
    throw new ConfigurationError(
      `Configuration ${path}: the default export is not a configuration (${describe(exported)}); expected an object with resources and endpoints arrays, as export default defineConfig({ resources, endpoints }) gives.`,
    );
  return exported;
}

async function importTypeScript(file: string): Promise<Record<string, unknown>> {
  const { createJiti } = await import('jiti');
  const jiti = createJiti(import.meta.url, {
    // The package as the running command has it: whichever copy is installed next to the file (or
    // none, or a stale build in this repository), its classes are the ones the service checks.
    virtualModules: { 'resource-query-service': self },
  });
  // Not `{ default: true }`: that gives the whole module when there is no default export.
  return (await jiti.import(file)) as Record<string, unknown>;
}

function isConfig(value: unknown): value is StandaloneConfig {
  if (typeof value !== 'object' || value === null) return false;
  const { resources, endpoints } = value as Partial<StandaloneConfig>;
  return Array.isArray(resources) && Array.isArray(endpoints);
}

function describe(value: unknown): string {
  if (value === null) return 'it is null';
  if (Array.isArray(value)) return 'it is an array';
  if (typeof value === 'function') return 'it is a function; export the configuration object itself';
  if (typeof value !== 'object') return `it is a ${typeof value}`;
  const keys = Object.keys(value);
  return keys.length ? `it has ${keys.join(', ')}` : 'it is an empty object';
}
