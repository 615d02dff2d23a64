/**
 * Between two measured loads, the work the last one left behind. wrk stops with a request in flight on
 * each of its connections. The baseline lets their statements run to the end; the service stops them
 * (a client that left costs the database nothing). Unsettled, a slow query's leftovers ran into the
 * next load, the baseline's into the service's rounds and never the reverse: after a 3 s round of
 * MariaDB's count by status (about a second a request), the baseline's statements ran 0.64 s on, the
 * service's 0.2 s. Each load now starts when the database runs no statement on the benchmark's
 * database and both servers' processes are quiet.
 */
import { sql } from 'kysely';
import { connect } from '../src/sql/connect.js';
import type { EngineName } from './engines.js';
import { cpuMicros } from './wrk.js';

/** The statements running on the benchmark's database, other than this question. */
const RUNNING: Record<Exclude<EngineName, 'sqlite'>, ReturnType<typeof sql<{ n: number | string }>>> = {
  pg: sql`select count(*) as n from pg_stat_activity
          where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`,
  // A statement's text, not the command: MariaDB shows the command 'Killed' for a thread that took a
  // KILL QUERY until its next statement begins, idle ones included (one that took it after its
  // statement had ended: counted as running, every load waited its 30 s).
  mariadb: sql`select count(*) as n from information_schema.processlist
               where db = database() and info is not null and id <> connection_id()`,
};

/**
 * How often the machine is looked at, and the CPU time both processes may use in that while and still be
 * quiet: /proc counts it in ticks of 10 ms, and an idle process's timers and collector cross one now
 * and then.
 */
const LOOK_MS = 100;
const QUIET_MICROS = 10_000;
/** A load that never settles (another tenant's work on the machine) is not waited for longer. */
const AT_MOST_MS = 30_000;

export interface Settler {
  /** Resolves once the last load's leftovers are done (or after 30 s): how long it waited, in ms. */
  settle(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The settler of one engine's run. SQLite has no server: its statements run inside the two processes,
 * whose quiet is enough.
 */
export function settler(engine: EngineName, url: string, pids: readonly number[]): Settler {
  const probe = engine === 'sqlite' ? undefined : { conn: connect(url), running: RUNNING[engine] };
  const running = async () => {
    if (!probe) return 0;
    const result = await probe.running.execute(probe.conn.db);
    return Number(result.rows[0]?.n ?? 0);
  };
  const used = () => pids.reduce((sum, pid) => sum + cpuMicros(pid), 0);
  return {
    async settle() {
      const start = Date.now();
      let before = used();
      while (Date.now() - start < AT_MOST_MS) {
        await new Promise((resolve) => setTimeout(resolve, LOOK_MS));
        const now = used();
        const quiet = now - before <= QUIET_MICROS;
        before = now;
        if (quiet && (await running()) === 0) break;
      }
      return Date.now() - start;
    },
    async close() {
      await probe?.conn.db.destroy();
    },
  };
}
