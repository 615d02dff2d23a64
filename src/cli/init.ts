import { parseArgs } from 'node:util';
import { init, OutputExistsError } from '../init/index.js';

export const initUsage = `Usage: resource-query-service init --database-url <url> [--out rqs.config.ts] [--force]

Reads the database (sqlite:<file>, postgres://…, mysql://…; default: DATABASE_URL) and writes a
configuration module: one resource per table, relations from foreign keys, one conservative endpoint
per resource. It refuses to overwrite <out> unless --force.
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
    io.log(`Review it, then serve it: npx resource-query-service --config ${result.path}`);
    return 0;
  } catch (error) {
    io.error(
      error instanceof OutputExistsError
        ? error.message
        : `init failed (${shown}): ${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }
}

function parseInitArgs(args: string[]) {
  return parseArgs({
    args,
    options: {
      'database-url': { type: 'string' },
      out: { type: 'string', default: 'rqs.config.ts' },
      force: { type: 'boolean', default: false },
      schema: { type: 'string' },
      'line-width': { type: 'string' },
      'import-from': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
}
