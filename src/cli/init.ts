import { isAbsolute, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { DatabaseMissingError, init, NothingToServeError, OutputExistsError } from '../init/index.js';

export const initUsage = `Usage: resource-query-service init --database-url <url> [--out rqs.config.ts] [--force] [--writable]

Reads the database (sqlite:<file>, postgres://…, mysql://…; default: DATABASE_URL) and writes a
configuration module: one resource per table (and per view with an id column), relations from foreign
keys, one endpoint per resource with its schema document for the admin UI. Endpoints only list and
read unless --writable. It refuses to overwrite <out> unless --force, a SQLite file that does not exist,
and a database with no table it can serve.
  --writable             let every table's endpoint create, update and delete (views stay read-only),
                         under an access rule that allows anyone: restrict it before you deploy
  --schema <name>        PostgreSQL: the schema to read (default: current_schema(), usually public)
  --line-width <n>       lay the file out for this line width (default 80)
  --import-from <module> the module the file imports from (default resource-query-service)`;

/** Where the output goes: the CLI's console, or a test's. */
export interface InitIo {
  log(message: string): void;
  error(message: string): void;
}

/** `resource-query-service init …`: the exit code (0 written, 1 failed, 2 usage). */
export async function runInit(args: string[], io: InitIo = console): Promise<number> {
  let parsed: ReturnType<typeof parseInitArgs>;
  try {
    parsed = parseInitArgs(args);
  } catch (error) {
    io.error(`${error instanceof Error ? error.message : String(error)}\n\n${initUsage}`);
    return 2;
  }
  const { values } = parsed;
  const url = values['database-url'] ?? process.env.DATABASE_URL;
  if (values.help || !url) {
    (values.help ? io.log : io.error)(initUsage);
    return values.help ? 0 : 2;
  }
  const lineWidth = values['line-width'] === undefined ? undefined : Number(values['line-width']);
  if (lineWidth !== undefined && !(Number.isInteger(lineWidth) && lineWidth >= 40 && lineWidth <= 320)) {
    io.error(`--line-width takes a whole number from 40 to 320.\n\n${initUsage}`);
    return 2;
  }
  const shown = url.replace(/\/\/[^@/]*@/, '//***@');
  try {
    const result = await init({
      databaseUrl: url,
      out: values.out,
      force: values.force,
      writable: values.writable,
      ...(values.schema !== undefined && { schema: values.schema }),
      ...(lineWidth !== undefined && { lineWidth }),
      ...(values['import-from'] !== undefined && { importFrom: values['import-from'] }),
    });
    const { resources, skipped } = result.plan;
    io.log(
      `Wrote ${result.path}: ${resources.length} resources and endpoints from ${shown}` +
        (resources.length > 0 ? ` (${resources.map((resource) => resource.name).join(', ')})` : '') +
        '.',
    );
    for (const skip of skipped) io.log(`  not a resource: ${skip.table}: ${skip.reason}`);
    const { indexAdvice } = result.plan;
    if (indexAdvice.length > 0)
      io.log(
        [
          `Sorts no index serves (${indexAdvice.length}): each reads the whole filtered table until an index leads with its column. These statements would serve them; init never runs them, review them with your migrations:`,
          ...indexAdvice.map((statement) => `  ${statement}`),
        ].join('\n'),
      );
    io.log(
      values.writable
        ? 'Endpoints may create, update and delete, and anyone may: restrict `anyone` in the file before you deploy.'
        : 'Endpoints list and read only: run init with --writable, or add actions and access rules, to write.',
    );
    const { command, masked } = serveCommand(url, result.path as string);
    io.log(`Review it, then serve it:\n  ${command}`);
    if (masked) io.log('  (put your password back in place of *** in DATABASE_URL: it is not printed)');
    return 0;
  } catch (error) {
    io.error(
      error instanceof OutputExistsError ||
        error instanceof DatabaseMissingError ||
        error instanceof NothingToServeError
        ? error.message
        : `init failed (${shown}): ${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }
}

/**
 * The command that serves the file written, with the database it was made from: the URL as given, but a
 * password (in the user info or a `password=` parameter) as `***`, since terminals and logs keep what is
 * printed; `masked` says the user must put it back.
 */
export function serveCommand(url: string, path: string): { command: string; masked: boolean } {
  const hidden = url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[^@/]+@/i, '$1***@')
    .replace(/([?&]password=)[^&]*/i, '$1***');
  const shown = relative(process.cwd(), path);
  const file = shown.startsWith('..') || isAbsolute(shown) ? path : shown;
  return {
    command: `DATABASE_URL=${shellWord(hidden)} npx resource-query-service --config ${shellWord(file)}`,
    masked: hidden !== url,
  };
}

/** A word the shell reads as it is: single-quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

function parseInitArgs(args: string[]) {
  return parseArgs({
    args,
    options: {
      'database-url': { type: 'string' },
      out: { type: 'string', default: 'rqs.config.ts' },
      force: { type: 'boolean', default: false },
      writable: { type: 'boolean', default: false },
      schema: { type: 'string' },
      'line-width': { type: 'string' },
      'import-from': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
}
