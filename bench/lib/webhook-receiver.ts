import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * A webhook receiver for the benchmarks: a node:http server in the benchmark's process that answers 204 as soon as
 * a delivery's body is in, verifies nothing, and then notes the event: its type, and for `record.created` its lag
 * (the arrival, epoch ms, minus the event's `timestamp`, the time of the write) and its arrival (performance.now()).
 * A `webhook-id` seen before is counted as a duplicate and not noted again.
 */
export class WebhookReceiver {
  private server: Server | null = null;
  port = 0;
  /** Arrival − event timestamp (ms) of each record.created delivery since the last reset. */
  lags: number[] = [];
  /** performance.now() at each record.created delivery since the last reset. */
  arrivals: number[] = [];
  duplicates = 0;
  private created = 0;
  private readonly seen = new Set<string>();

  /** Listens on 127.0.0.1 at `port` (0: any free port). */
  async listen(port = 0): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const now = Date.now();
        const arrival = performance.now();
        response.writeHead(204).end();
        const id = String(request.headers['webhook-id']);
        if (this.seen.has(id)) {
          this.duplicates += 1;
          return;
        }
        this.seen.add(id);
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; timestamp: string };
        if (event.type !== 'record.created') return;
        this.created += 1;
        this.lags.push(now - Date.parse(event.timestamp));
        this.arrivals.push(arrival);
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Stops listening and drops the open connections: the port then refuses connections. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** record.created deliveries since the last reset (without duplicates). */
  get createdCount(): number {
    return this.created;
  }

  reset(): void {
    this.lags = [];
    this.arrivals = [];
    this.created = 0;
  }

  /**
   * Waits until `count` record.created deliveries have arrived since the last reset; the ms waited. Throws after
   * `timeoutMs`, or when no delivery arrived for `stallMs` (the worker is stuck: the figures would mean nothing).
   */
  async waitForCreated(count: number, timeoutMs: number, stallMs = Number.POSITIVE_INFINITY): Promise<number> {
    const started = performance.now();
    let last = this.created;
    let lastChange = started;
    while (this.created < count) {
      const now = performance.now();
      if (this.created !== last) {
        last = this.created;
        lastChange = now;
      }
      if (now - started > timeoutMs || now - lastChange > stallMs) {
        throw new Error(
          `${this.created} of ${count} record.created events delivered (not within ${timeoutMs / 1000} s, or none for ${stallMs / 1000} s)`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return performance.now() - started;
  }
}
