import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createService } from '../core/service.js';
import { type OpenApiDocument, renderTypes } from '../openapi/index.js';
import { connect } from '../sql/connect.js';
import { connectOptionsFrom } from './env.js';
import { loadConfig } from './load-config.js';

export const typesUsage = `Usage: resource-query-service types --config <module> [--out api.ts]
       resource-query-service types --url <http://host/api/openapi.json> [--out api.ts]

Writes a TypeScript module for the typed client: each endpoint's record, filter and input types and
the \`Resources\` and \`endpoints\` that createClient<Resources>(endpoints) takes (stdout without --out).
They are made from the OpenAPI document: the configuration's (started as the server starts it, on
DATABASE_URL, default sqlite:./demo.db, whose catalog gives nullability), or a running service's.`;

/** Where the output goes: the CLI's console, or a test's. */
export interface TypesIo {
  log(message: string): void;
  error(message: string): void;
}

/** The document of a configuration module, as `createService` builds it on DATABASE_URL. */
async function documentOf(configPath: string): Promise<OpenApiDocument> {
  const config = await loadConfig(configPath);
  const connection = connect(process.env.DATABASE_URL ?? 'sqlite:./demo.db', connectOptionsFrom(process.env));
  try {
    await config.setup?.(connection);
    // A configuration that serves no document still has types.
    const service = await createService({ config: { ...config, openapi: config.openapi || {} }, connection });
    return service.openapi as OpenApiDocument;
  } finally {
    await connection.db.destroy();
  }
}

async function fetchDocument(url: string): Promise<OpenApiDocument> {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url} answered ${response.status}.`);
  const document = (await response.json()) as Partial<OpenApiDocument>;
  if (!document['x-resources'] || !document.components)
    throw new Error(`${url} is not a resource-query-service OpenAPI document (no x-resources).`);
  return document as OpenApiDocument;
}

/** `resource-query-service types …`: the exit code (0 written, 1 failed, 2 usage). */
export async function runTypes(args: string[], io: TypesIo = console): Promise<number> {
  let values: { config?: string; url?: string; out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        config: { type: 'string' },
        url: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    io.error(`${error instanceof Error ? error.message : String(error)}\n\n${typesUsage}`);
    return 2;
  }
  if (values.help || (values.config === undefined) === (values.url === undefined)) {
    (values.help ? io.log : io.error)(typesUsage);
    return values.help ? 0 : 2;
  }
  try {
    const document = values.config
      ? await documentOf(values.config)
      : await fetchDocument(values.url as string);
    const text = renderTypes(document);
    if (values.out === undefined) io.log(text);
    else {
      await writeFile(values.out, text);
      io.log(`Wrote the types of ${Object.keys(document['x-resources']).length} endpoints to ${values.out}.`);
    }
    return 0;
  } catch (error) {
    io.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
