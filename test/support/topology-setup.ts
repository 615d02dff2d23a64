import { ensureTopology } from './topology.js';

/** Global set-up of the shared-services suites: the replica and PgBouncer up before any of them runs. */
export default async function setup(): Promise<void> {
  await ensureTopology();
}
