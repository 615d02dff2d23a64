/**
 * A stand-in for the service's live route over real HTTP (node:http on port 0), for the client's and
 * the providers' tests: each request is kept (its topics, headers, response), answered by the next
 * queued answer or else with a stream that stays open for the test to write frames to.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, vi } from 'vitest';

/** One request the server received: what it asked for, and its response to write to. */
export interface Opened {
  readonly topics: string[];
  readonly headers: IncomingHttpHeaders;
  readonly query: URLSearchParams;
  readonly res: ServerResponse;
  closed: boolean;
}

export type Answer = (res: ServerResponse) => void;

/** Answers each request with the next queued answer, else with a stream that stays open. */
export class LiveServer {
  readonly opened: Opened[] = [];
  readonly answers: Answer[] = [];
  readonly server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const opened: Opened = {
      topics: url.searchParams.getAll('topic'),
      headers: req.headers,
      query: url.searchParams,
      res,
      closed: false,
    };
    res.on('close', () => {
      opened.closed = true;
    });
    this.opened.push(opened);
    if (url.pathname !== '/api/live') return refuse(404, 'No such route.')(res);
    const answer = this.answers.shift();
    if (answer) return answer(res);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write('retry: 10\n\n');
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The `n`th request (from 1), once it has arrived. */
  async request(n: number): Promise<Opened> {
    await vi.waitFor(() => expect(this.opened.length).toBeGreaterThanOrEqual(n), { timeout: 5000 });
    return this.opened[n - 1] as Opened;
  }
}

export const refuse =
  (status: number, message: string, errors: Record<string, string[]> = {}, headers = {}): Answer =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ message, errors }));
  };

export function frame(res: ServerResponse, fields: { id?: number; event?: string; data?: unknown }): void {
  const lines = [
    ...(fields.id !== undefined ? [`id: ${fields.id}`] : []),
    ...(fields.event !== undefined ? [`event: ${fields.event}`] : []),
    ...(fields.data !== undefined ? [`data: ${JSON.stringify(fields.data)}`] : []),
  ];
  res.write(`${lines.join('\n')}\n\n`);
}

export const change = (res: ServerResponse, id: number, topic: string, type: string, ids: unknown[]) =>
  frame(res, { id, event: 'change', data: { topic, type, ids } });
