import { ensureTopology } from './topology.js';

/** Global set-up: the replica and PgBouncer up before any suite runs (test/topology.test.ts uses them). */
export default async function setup(): Promise<void> {
  await ensureTopology();
}
