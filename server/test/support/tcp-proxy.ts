import net from 'node:net';

/**
 * A TCP proxy of the test's own in front of a shared service (the machine's PostgreSQL), so that a
 * test can make that service stall for its servers without stopping it for anyone else: `freeze()`
 * stops moving bytes both ways on every connection, open or new (a stalled host: nothing is
 * refused, nothing answers); `thaw()` lets them flow again.
 */
export class TcpProxy {
  private frozen = false;
  private readonly sockets = new Set<net.Socket>();
  private readonly pairs = new Set<[net.Socket, net.Socket]>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port);
    server.on('connection', (client) => proxy.accept(client, target));
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  private accept(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    for (const s of pair) {
      this.sockets.add(s);
      s.on('error', () => {});
      s.once('close', () => {
        this.sockets.delete(s);
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    this.pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    if (this.frozen) this.pause(pair);
  }

  private pause([a, b]: [net.Socket, net.Socket]): void {
    a.unpipe(b);
    b.unpipe(a);
    a.pause();
    b.pause();
  }

  /** Stops every byte, on open connections and on those opened from now on. */
  freeze(): void {
    this.frozen = true;
    for (const pair of this.pairs) this.pause(pair);
  }

  /** Lets bytes flow again (what was sent meanwhile arrives now). */
  thaw(): void {
    this.frozen = false;
    for (const [a, b] of this.pairs) {
      a.pipe(b);
      b.pipe(a);
    }
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
