import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { accepts, freePort, systemProgram, waitUntil } from './ports.js';

/**
 * A redis-server of the test's own, on a free port, without persistence: a test may stop it (to
 * see the server live through a Redis outage) and start it again on the same port.
 */
export class RedisProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private output = '';

  private constructor(
    readonly port: number,
    private readonly binary: string,
  ) {}

  static async start(): Promise<RedisProcess> {
    const binary = systemProgram('redis-server', 'apt-get install -y redis-server');
    const redis = new RedisProcess(await freePort(), binary);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts redis-server on this port (again). */
  async start(): Promise<void> {
    if (this.child) throw new Error('redis-server is already running');
    const args = ['--save', '', '--appendonly', 'no', '--port', String(this.port)];
    const child = spawn(this.binary, [...args, '--bind', '127.0.0.1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.child = child;
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited:\n${this.output}`);
        return accepts(this.port);
      },
      10_000,
      `redis-server on port ${this.port}`,
    );
  }

  /** Stops redis-server with `signal` and waits until it is gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await this.exited;
  }

  /** The keys matching `pattern`, read through a connection of its own. */
  async keys(pattern = '*'): Promise<string[]> {
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await client.connect();
      return await client.keys(pattern);
    } finally {
      client.disconnect();
    }
  }
}
