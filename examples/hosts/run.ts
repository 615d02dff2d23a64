import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Connection } from '../../src/sql/connect.js';
import { connect } from '../../src/sql/connect.js';
import { createSchema, dropSchema } from '../demo/schema.js';
import { isSeeded, seedDemo } from '../demo/seed.js';
import { apiKeys } from './tenancy.js';

/** What every example exports: its application started on a port, over a connection the caller owns. */
export interface StartOptions {
  connection: Connection;
  /** Default 0: a free port. */
  port?: number;
  host?: string;
}

export interface Started {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Stops the server (the connection stays open: it is the caller's). */
  close(): Promise<void>;
}

/** A listening Node server as `Started`: its URL, and a close that also ends kept-alive connections. */
export function started(server: Server, host: string): Started {
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((error) => (error ? fail(error) : done()));
      }),
  };
}

/**
 * `node dist/examples/hosts/<host>.js` (after `npm run build`): the example on DATABASE_URL (default
 * the demo's SQLite file, created and filled on first run), PORT (default 3000).
 */
export async function runWhenMain(moduleUrl: string, start: (options: StartOptions) => Promise<Started>) {
  const main = process.argv[1];
  if (!main || pathToFileURL(resolve(main)).href !== moduleUrl) return;
  const connection = connect(process.env.DATABASE_URL ?? 'sqlite:./demo.db');
  if (!(await isSeeded(connection))) {
    await dropSchema(connection);
    await createSchema(connection);
    await seedDemo(connection);
  }
  const { url, close } = await start({ connection, port: Number(process.env.PORT ?? 3000) });
  const [key] = Object.keys(apiKeys);
  console.log(`Listening on ${url}; try:\n  curl -s -H 'x-api-key: ${key}' '${url}/api/users?count=posts'`);
  const stop = () => {
    close()
      .then(() => connection.db.destroy())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
