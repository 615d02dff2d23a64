import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';

/** How long workers get to finish their requests in flight after SIGTERM before they are killed. */
const SHUTDOWN_GRACE_MS = 30_000;

/**
 * One line of the primary process's log, in the workers' format (pino's JSON lines: level 30 info, 40
 * warn, 50 error), so the stream the workers share with it reads as one log.
 */
export function logLine(level: 30 | 40 | 50, msg: string, fields: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ level, time: Date.now(), pid: process.pid, role: 'primary', ...fields, msg }));
}

/** `http://127.0.0.1:3000`, as Fastify writes the address it listens on. */
function addressUrl(address: AddressInfo | { address: string; port: number }): string {
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * The primary process of `--workers N`: forks N copies of this command (node:cluster), which share the
 * port, and supervises them. `onListening` is called once, with the address, when the first worker
 * listens. A worker that ends while serving is replaced; one that ends before it ever listened (a
 * start-up failure: the database, the configuration) stops them all with exit code 1. SIGTERM or SIGINT
 * passes SIGTERM to every worker, which finishes its requests in flight and closes its pools; the
 * primary exits once all have ended (or kills them after 30 s).
 */
export function superviseWorkers(count: number, onListening: (address: string) => void): void {
  let stopping = false;
  let announced = false;
  const listened = new WeakSet<Worker>();

  // Node keeps a worker in cluster.workers after its 'exit' event until its IPC channel has closed too, so
  // "none left" is asked of the processes, not of that list.
  const alive = () =>
    Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => !!worker && !worker.isDead());

  const stop = (signal: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    // Also the code of a primary whose event loop drains once the last worker is gone.
    process.exitCode = exitCode;
    logLine(30, 'shutting down: stopping the workers', { signal });
    const running = alive();
    if (running.length === 0) process.exit(exitCode);
    for (const worker of running) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of alive()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    cluster.on('exit', () => {
      if (alive().length === 0) process.exit(exitCode);
    });
  };

  cluster.on('listening', (worker, address) => {
    listened.add(worker);
    if (announced) return;
    announced = true;
    onListening(addressUrl(address));
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (!listened.has(worker)) {
      logLine(50, 'a worker ended before it served: stopping', { worker: worker.id, code, signal });
      stop('worker start-up failure', 1);
      return;
    }
    logLine(40, 'a worker ended; starting another', { worker: worker.id, code, signal });
    cluster.fork();
  });
  process.on('SIGINT', () => stop('SIGINT', 0));
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  for (let i = 0; i < count; i++) cluster.fork();
}
