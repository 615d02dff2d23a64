import type { FastifyInstance } from 'fastify';
import type { Connection } from '../sql/connect.js';

/** How long readiness waits for the primary's `select 1`: shorter than load balancers' usual probe timeouts. */
const READY_TIMEOUT_MS = 1000;

/**
 * Probes for load balancers and orchestrators, outside the service's prefix and its access rules:
 *
 * - `GET /health/live`: 200 while the process serves HTTP; it asks no database.
 * - `GET /health/ready`: 200 when the primary answers `select 1` within a second, else 503 with the
 *   error envelope. Its `replicas` member reports each read replica up or down; a replica that is down
 *   does not make the service unready, since its reads go to the other replicas or to the primary.
 */
export function registerHealth(app: FastifyInstance, connection: Connection): void {
  // Never cached: a cached "ready" would hide the outage the probe exists to see.
  const noStore = { 'cache-control': 'no-store' };
  app.get('/health/live', async (_request, reply) => reply.headers(noStore).send({ status: 'live' }));
  app.get('/health/ready', async (_request, reply) => {
    const { primary, replicas } = await connection.health(READY_TIMEOUT_MS);
    if (primary.up) return reply.headers(noStore).send({ status: 'ready', primary, replicas });
    const message = `The database does not answer (${primary.error}).`;
    return reply
      .status(503)
      .headers(noStore)
      .send({ message, errors: { database: [message] }, status: 'unready', primary, replicas });
  });
}
