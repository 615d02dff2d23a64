import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type RequestListener,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { Hono } from 'hono';
import { createExpressMiddleware } from '../../src/hosts/express.js';
import { resourceQueryPlugin } from '../../src/hosts/fastify.js';
import { createFetchHandler } from '../../src/hosts/fetch.js';
import { createHonoMiddleware } from '../../src/hosts/hono.js';
import type { ServiceConfig } from '../../src/resource/policy.js';
import { buildService } from '../../src/server/standalone.js';
import type { Connection } from '../../src/sql/connect.js';

/** Every way the service is served: the standalone server, and each host adapter inside an application. */
export const hostNames = [
  'standalone',
  'standalone-direct',
  'fastify-plugin',
  'express',
  'hono',
  'fetch',
] as const;
export type HostName = (typeof hostNames)[number];

export interface InjectOptions {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as it is. */
  payload?: unknown;
}

/** What a test reads of a response, the same for every host (light-my-request's names). */
export interface InjectResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the service answered and assert on it.
  json(): any;
}

export interface Host {
  inject(options: InjectOptions): Promise<InjectResponse>;
  /** The standalone server or the host Fastify application (for tests that need Fastify itself). */
  readonly fastify?: FastifyInstance;
  /** The Host header its requests carry unless a test sets one: the answers' links are built from it. */
  readonly authority: string;
  close(): Promise<void>;
}

/** The host application's own route: it must keep working beside the service's. */
export const HOST_ROUTE = '/host/health';

/**
 * The service inside a fresh application of `name`, with a route of the application's own, as a
 * developer following docs/hosts.md would write it. Fastify hosts are injected; the others listen on a
 * port and are reached over real HTTP.
 */
export async function startHost(
  name: HostName,
  config: ServiceConfig,
  connection: Connection,
): Promise<Host> {
  switch (name) {
    case 'standalone': {
      const app = await buildService({ config, connection });
      return fastifyHost(app);
    }
    case 'standalone-direct': {
      // The CLI's server: its GET requests answered without Fastify's objects (server/direct.ts),
      // which only a request over a real socket reaches (inject goes to Fastify).
      const app = await buildService({ config, connection, directReads: true });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return onPort((app.server.address() as AddressInfo).port, () => app.close());
    }
    case 'fastify-plugin': {
      const app = Fastify();
      app.get(HOST_ROUTE, async () => ({ ok: 'fastify' }));
      await app.register(resourceQueryPlugin, { config, connection, prefix: config.prefix ?? '/api' });
      return fastifyHost(app);
    }
    case 'express': {
      const app = express();
      app.get(HOST_ROUTE, (_req, res) => {
        res.json({ ok: 'express' });
      });
      const middleware = await createExpressMiddleware({ config, connection });
      app.use(middleware);
      return listening(app, middleware);
    }
    case 'hono': {
      const app = new Hono();
      app.get(HOST_ROUTE, (c) => c.json({ ok: 'hono' }));
      const middleware = await createHonoMiddleware({ config, connection });
      app.use(middleware);
      return listening(getRequestListener(app.fetch), middleware);
    }
    case 'fetch': {
      const handler = await createFetchHandler({ config, connection });
      return listening(
        getRequestListener((request) =>
          new URL(request.url).pathname === HOST_ROUTE ? Response.json({ ok: 'fetch' }) : handler(request),
        ),
        handler,
      );
    }
  }
}

function fastifyHost(app: FastifyInstance): Host {
  return {
    fastify: app,
    // light-my-request's own, for a request without a Host header.
    authority: 'localhost:80',
    async inject({ method = 'GET', url, headers, payload }) {
      const response = await app.inject({
        method: method as 'GET',
        url,
        ...(headers && { headers }),
        ...(payload !== undefined && { payload: payload as string }),
      });
      return {
        statusCode: response.statusCode,
        headers: response.headers as InjectResponse['headers'],
        body: response.body,
        json: () => response.json(),
      };
    },
    close: () => app.close(),
  };
}

/**
 * An application's listener on a port of its own. Closing it closes the service's handler first, as
 * docs/hosts.md says to (its live streams end, saying so), then every connection.
 */
async function listening(listener: RequestListener, service: { close(): void }): Promise<Host> {
  const server: Server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return onPort((server.address() as AddressInfo).port, async () => {
    service.close();
    // The streams' last frames written before their connections go.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    });
  });
}

/** A host reached over real HTTP on `port`. */
function onPort(port: number, close: () => Promise<void>): Host {
  return {
    authority: `127.0.0.1:${port}`,
    async inject({ method = 'GET', url, headers = {}, payload }) {
      if (fetchRefuses.has(method.toUpperCase())) return rawRequest(port, method, url, headers);
      const sent = { ...headers };
      let body: string | undefined;
      if (typeof payload === 'string') body = payload;
      else if (payload !== undefined) {
        body = JSON.stringify(payload);
        sent['content-type'] ??= 'application/json';
      }
      const response = await fetch(`http://127.0.0.1:${port}${url}`, { method, headers: sent, body });
      const text = await response.text();
      const responseHeaders: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        responseHeaders[key] = value;
      });
      return {
        statusCode: response.status,
        headers: responseHeaders,
        body: text,
        json: () => JSON.parse(text),
      };
    },
    close,
  };
}

/** Methods fetch will not send (the Fetch standard forbids them); node:http sends them as they are. */
const fetchRefuses = new Set(['TRACE', 'TRACK', 'CONNECT']);

async function rawRequest(
  port: number,
  method: string,
  url: string,
  headers: Record<string, string>,
): Promise<InjectResponse> {
  const request = httpRequest({ host: '127.0.0.1', port, method, path: url, headers });
  request.end();
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  let body = '';
  for await (const chunk of response) body += String(chunk);
  const responseHeaders: Record<string, string> = {};
  for (const [key, value] of Object.entries(response.headers))
    if (value !== undefined) responseHeaders[key] = Array.isArray(value) ? value.join(', ') : value;
  return {
    statusCode: response.statusCode ?? 0,
    headers: responseHeaders,
    body,
    json: () => JSON.parse(body),
  };
}
