import type { Opened, Row, RunOptions, SqlDialect, Statement } from './dialect.js';

/** A read, and whether it must see the primary's latest writes. */
export interface ReadOptions extends RunOptions {
  /**
   * Run on the primary even when read replicas are configured: the client asked to read its own
   * writes (the `Consistency: primary` request header).
   */
  readonly primary?: boolean;
}

/** How one database answered a `select 1`. */
export interface NodeHealth {
  /** The URL without its credentials. */
  readonly url: string;
  readonly up: boolean;
  /** Why it is down, when it is. */
  readonly error?: string;
}

export interface ConnectionHealth {
  readonly primary: NodeHealth;
  readonly replicas: readonly NodeHealth[];
}

/** A read replica: its pool, and until when it is skipped after a failure. */
interface Replica {
  readonly url: string;
  readonly opened: Opened;
  downUntil: number;
}

/** `postgres://user:secret@host/db` → `postgres://***@host/db`: what logs and health reports may show. */
export function withoutCredentials(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

const probe: Statement = { sql: 'select 1', parameters: [] };

/** `select 1` within `ms`, or the reason it did not answer. */
async function ping(opened: Opened, ms: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  // The pool's own connect timeout may be longer than a load balancer waits: the probe has its own.
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${ms} ms`), ms);
  });
  try {
    return await Promise.race([opened.run(probe, { timeoutMs: ms }).then(() => undefined), late]);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads spread over replicas, writes on the primary. A read goes to the next replica in turn; one that
 * fails to answer for a reason the dialect calls "unavailable" (refused connection, shut down, no such
 * database yet) is skipped for `retryMs` and the read is retried on the next one, then on the primary,
 * so the client sees the answer rather than the failure. Other errors (a timeout, a bad statement) are
 * the read's own and are not retried.
 */
export class ReadRouter {
  private readonly replicas: Replica[];
  private readonly primaryUrl: string;
  private next = 0;

  constructor(
    private readonly primary: Opened,
    private readonly dialect: SqlDialect,
    replicas: readonly { url: string; opened: Opened }[],
    private readonly retryMs: number,
    primaryUrl: string,
  ) {
    this.primaryUrl = withoutCredentials(primaryUrl);
    this.replicas = replicas.map(({ url, opened }) => ({
      url: withoutCredentials(url),
      opened,
      downUntil: 0,
    }));
  }

  run(statement: Statement, options?: ReadOptions): Promise<Row[]> {
    if (options?.primary) return this.primary.run(statement, options);
    return this.fromReplica(statement, options, this.replicas.length);
  }

  /** Tries up to `left` replicas in turn, then the primary. */
  private fromReplica(statement: Statement, options: ReadOptions | undefined, left: number): Promise<Row[]> {
    const now = Date.now();
    for (; left > 0; left--) {
      const replica = this.replicas[this.next] as Replica;
      this.next = (this.next + 1) % this.replicas.length;
      if (replica.downUntil > now) continue;
      return replica.opened.run(statement, options).catch(async (error: unknown) => {
        const refusal = await this.dialect.refusal(error, replica.opened.db).catch(() => undefined);
        if (refusal?.kind !== 'unavailable' || options?.departure?.left) throw error;
        replica.downUntil = Date.now() + this.retryMs;
        return this.fromReplica(statement, options, left - 1);
      });
    }
    return this.primary.run(statement, options);
  }

  /** The primary and every replica, each asked `select 1` within `ms`; a replica's answer updates its state. */
  async health(ms: number): Promise<ConnectionHealth> {
    const [primary, ...replicas] = await Promise.all([
      ping(this.primary, ms),
      ...this.replicas.map((replica) => ping(replica.opened, ms)),
    ]);
    return {
      primary: nodeHealth(this.primaryUrl, primary),
      replicas: this.replicas.map((replica, i) => {
        const error = replicas[i];
        replica.downUntil = error === undefined ? 0 : Date.now() + this.retryMs;
        return nodeHealth(replica.url, error);
      }),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.opened.db.destroy()));
  }
}

function nodeHealth(url: string, error: string | undefined): NodeHealth {
  return error === undefined ? { url, up: true } : { url, up: false, error };
}
