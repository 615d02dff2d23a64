import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/**
 * A real TCP proxy between the service and a database, for faults the service must survive: `cut()`
 * resets every connection through it (a restart, a dropped route), `silence()` makes the network a
 * black hole (connections stay open, nothing arrives either way, new connections are accepted and
 * never reach the database), `heal()` ends the silence and delivers what was held, in order, as TCP's
 * retransmissions would. Written here because it is a few lines over node:net; Toxiproxy, the usual
 * tool, is a Go server this machine's registries do not carry.
 */
export class TcpProxy {
  private readonly links = new Set<Link>();
  private silent = false;

  private constructor(
    private readonly server: Server,
    private readonly target: { port: number; host: string },
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  static async start(port: number, host = '127.0.0.1'): Promise<TcpProxy> {
    const proxy = new TcpProxy(createServer(), { port, host });
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** Connections open through the proxy now. */
  get open(): number {
    return this.links.size;
  }

  /** Resets every connection through the proxy; new ones are forwarded as before. */
  cut(): void {
    for (const link of this.links) link.destroy();
  }

  /** From now on nothing crosses, either way, and nothing is reset. */
  silence(): void {
    this.silent = true;
  }

  /** Ends the silence: held bytes are delivered, connections accepted meanwhile reach the database. */
  heal(): void {
    this.silent = false;
    for (const link of this.links) link.flush();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const link = new Link(
      client,
      () => tcpConnect(this.target.port, this.target.host),
      () => this.silent,
    );
    this.links.add(link);
    link.onClose(() => this.links.delete(link));
    if (!this.silent) link.flush();
  }
}

/** One client connection and its upstream, with the bytes and closes the silence holds back. */
class Link {
  private upstream: Socket | undefined;
  private readonly toServer: Buffer[] = [];
  private readonly toClient: Buffer[] = [];
  private clientEnded = false;
  private closed = false;
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    private readonly client: Socket,
    private readonly dial: () => Socket,
    private readonly silent: () => boolean,
  ) {
    client.on('data', (chunk: Buffer) => {
      if (this.silent() || !this.upstream) this.toServer.push(chunk);
      else this.upstream.write(chunk);
    });
    // A close is a packet too: in silence it waits with the data.
    client.on('close', () => {
      this.clientEnded = true;
      if (!this.silent()) this.destroy();
    });
    client.on('error', () => {});
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Connects upstream if not yet, then delivers what was held. */
  flush(): void {
    if (this.closed) return;
    if (!this.upstream) {
      const upstream = this.dial();
      this.upstream = upstream;
      upstream.on('data', (chunk: Buffer) => {
        if (this.silent()) this.toClient.push(chunk);
        else this.client.write(chunk);
      });
      upstream.on('close', () => {
        if (!this.silent()) this.destroy();
      });
      upstream.on('error', () => {});
    }
    for (const chunk of this.toServer.splice(0)) this.upstream.write(chunk);
    for (const chunk of this.toClient.splice(0)) this.client.write(chunk);
    if (this.clientEnded || this.upstream.destroyed) this.destroy();
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    // resetAndDestroy sends RST, as a middlebox that drops the route would.
    this.client.resetAndDestroy();
    this.upstream?.resetAndDestroy();
    for (const listener of this.closeListeners) listener();
  }
}
