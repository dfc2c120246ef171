/**
 * Webhooks: what a subscribed endpoint costs the writes, and whether delivery keeps up (issue 15, Speed).
 *
 * 1. Single creates at `--connections` (8) for `--duration` s, with no webhook and with one webhook (all events) to a
 *    fast local receiver, alternating, `--reps` times: the ratio with/without.
 * 2. Event lag: creates at the same concurrency for `--lag-duration` s (default 60) with the webhook; each event's
 *    lag is its arrival at the receiver minus its `timestamp` (the write); p50/p99/max over every event of the run,
 *    after waiting for the last one.
 * 3. Import: `--rows` rows (default 200,000; the issue's figure is 1m) through record.import in 1000-row calls,
 *    without and with the endpoint (in turn first and second, as the records table grows), the ratio, and one
 *    `records.imported` event per call.
 * 4. Receiver down, then up: the webhook's port refuses connections; creates for `--duration` s (the ratio to a
 *    run of the same creates without a webhook just before it, on a records table of the same size); then the receiver listens again on that port, and the backlog's drain is
 *    timed: the time until its first event arrives (the worker tries a failing endpoint less and less often) and
 *    the events per second from the first to the last.
 * 5. A backlog that comes due at once: the receiver answers 429 with a `Retry-After` date a few seconds after the
 *    writes end, to every delivery of a `--duration` s run of creates, then 204: the events per second from the
 *    first delivery to the last (within the date's one-second resolution).
 *
 * The receiver is a node:http server in this process answering 204 at once.
 *
 *   node --import tsx bench/webhooks.ts [--connections 8] [--duration 10] [--lag-duration 60] [--rows 200000]
 *                                       [--reps 3] [--db sqlite|postgres] [--steps 1,2,3,4,5] [--down-duration 10]
 *
 * `--steps` runs only those steps (a ratio needs step 1); `--down-duration` is step 4's time with the receiver
 * down (default `--duration`), for a larger backlog where writes are slow (PostgreSQL on a loaded machine).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createProductModel, importBodies, importRows, productRow, skuPrefix } from './lib/catalog.js';
import type { GqlClient } from './lib/client.js';
import { closedLoop, type LoadResult } from './lib/load.js';
import { runBenchmark, startService } from './lib/run.js';
import { largest, latencySummary, smallest, spread } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, fmtSpread, printTable } from './lib/table.js';

const CREATE = 'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }';
const CREATE_WEBHOOK = 'mutation ($input: CreateWebhookInput!) { webhook { create(input: $input) { webhook { id } secret } } }';
const DELETE_WEBHOOK = 'mutation ($id: ID!) { webhook { delete(id: $id) { deleted } } }';
const BATCH = 1000;

/** A local receiver: counts the deliveries by event type and notes each one's arrival and event time. */
class Receiver {
  private server: Server | null = null;
  port = 0;
  /** Until this time (epoch ms) every delivery is answered 429 with Retry-After at `busyUntil`. */
  busyUntil = 0;
  /** Arrival − event timestamp, ms, of each record.created delivery (from `trackFrom` on). */
  lags: number[] = [];
  arrivals: number[] = [];
  byType = new Map<string, number>();
  private readonly seen = new Set<string>();
  duplicates = 0;

  async listen(port = 0): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const now = Date.now();
        if (now < this.busyUntil) {
          response.writeHead(429, { 'retry-after': new Date(this.busyUntil).toUTCString() }).end();
          return;
        }
        response.writeHead(204).end();
        const id = String(request.headers['webhook-id']);
        if (this.seen.has(id)) {
          this.duplicates += 1;
          return;
        }
        this.seen.add(id);
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; timestamp: string };
        this.byType.set(event.type, (this.byType.get(event.type) ?? 0) + 1);
        if (event.type === 'record.created') {
          this.lags.push(now - Date.parse(event.timestamp));
          this.arrivals.push(performance.now());
        }
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

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  count(type: string): number {
    return this.byType.get(type) ?? 0;
  }

  reset(): void {
    this.lags = [];
    this.arrivals = [];
    this.byType.clear();
  }
}

/** CPU time (user + system) of a process so far, in microseconds (clock ticks of 10 ms). */
function serverCpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** How many of the (sorted) times fall in each `ms` interval from the first. */
function perInterval(sorted: readonly number[], ms: number): number[] {
  const counts: number[] = [];
  for (const time of sorted) {
    const slot = Math.floor((time - sorted[0]!) / ms);
    while (counts.length <= slot) counts.push(0);
    counts[slot]! += 1;
  }
  return counts;
}

async function waitUntil(condition: () => boolean, timeoutMs: number, what: () => string): Promise<number> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what()} (not within ${timeoutMs / 1000} s)`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return performance.now() - started;
}

await runBenchmark('webhooks', async ({ args, kind, reps }) => {
  const connections = args.int('connections', 8);
  const durationMs = args.int('duration', 10) * 1000;
  const warmupMs = args.int('warmup', 1) * 1000;
  const lagDurationMs = args.int('lag-duration', 60) * 1000;
  const rows = args.int('rows', 200_000);
  const drainTimeoutMs = args.int('drain-timeout', 600) * 1000;
  const downDurationMs = args.int('down-duration', durationMs / 1000) * 1000;
  const steps = new Set(args.string('steps', '1,2,3,4,5').split(',').map(Number));

  const receiver = new Receiver();
  await receiver.listen();
  const service = await startService(kind, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  try {
    const setup = service.client(1);
    const modelId = await createProductModel(setup);
    const prefix = skuPrefix();
    let created = 0;
    const creates = (client: GqlClient) => async (): Promise<number> =>
      (await client.request(CREATE, { input: { modelId, data: productRow(prefix, created++) } })).ms;
    const subscribe = async (url: string): Promise<string> => {
      const answer = await setup.request<{ webhook: { create: { webhook: { id: string } } } }>(CREATE_WEBHOOK, {
        input: { url, events: ['*'], description: 'bench' },
      });
      return answer.data.webhook.create.webhook.id;
    };
    const unsubscribe = (id: string) => setup.request(DELETE_WEBHOOK, { id });
    const receiverUrl = () => `http://127.0.0.1:${receiver.port}/hook`;
    const createLoad = async (ms: number): Promise<LoadResult> => {
      const client = service.client(connections);
      const result = await closedLoop(connections, warmupMs, ms, creates(client));
      await client.close();
      return result;
    };

    // 1. Creates with and without one subscribed endpoint, alternating.
    const without: LoadResult[] = [];
    const withHook: LoadResult[] = [];
    for (let rep = 1; rep <= (steps.has(1) ? reps : 0); rep++) {
      const plain = await createLoad(durationMs);
      without.push(plain);
      console.log(
        `rep ${rep} creates × ${connections}, no webhook: ${fmtInt(plain.requestsPerSecond)} req/s, p99 ${fmtMs(plain.p99)} ms`,
      );
      receiver.reset();
      const webhookId = await subscribe(receiverUrl());
      const hooked = await createLoad(durationMs);
      withHook.push(hooked);
      console.log(
        `rep ${rep} creates × ${connections}, one webhook: ${fmtInt(hooked.requestsPerSecond)} req/s, p99 ${fmtMs(hooked.p99)} ms`,
      );
      await unsubscribe(webhookId);
    }

    // 2. Event lag over a longer run.
    receiver.reset();
    let expected = 0;
    let lag = latencySummary([]);
    let lagLoad: LoadResult | null = null;
    if (steps.has(2)) {
      const lagWebhook = await subscribe(receiverUrl());
      const before = created;
      lagLoad = await createLoad(lagDurationMs);
      expected = created - before;
      const waitedMs = await waitUntil(
        () => receiver.count('record.created') >= expected,
        drainTimeoutMs,
        () => `lag run: ${receiver.count('record.created')} of ${expected} events delivered`,
      );
      lag = latencySummary(receiver.lags);
      console.log(
        `lag run: ${fmtInt(expected)} creates at ${fmtInt(lagLoad.requestsPerSecond)} req/s over ${lagDurationMs / 1000} s; ` +
          `event lag p50 ${fmtMs(lag.p50)} ms, p99 ${fmtMs(lag.p99)} ms, max ${fmtMs(lag.max)} ms; last event ${fmtMs(waitedMs)} ms after the load`,
      );
      await unsubscribe(lagWebhook);
    }

    // 3. Import without and with the endpoint (a fresh model for each, so both start from an empty table).
    const importRuns: { hooked: boolean; rowsPerSecond: number; events: number; calls: number }[] = [];
    for (let rep = 1; rep <= (steps.has(3) ? reps : 0); rep++) {
      // The order alternates: the second import of a rep writes into a larger records table (other models' rows).
      for (const hooked of rep % 2 === 1 ? [false, true] : [true, false]) {
        const target = await createProductModel(setup, `import${rep}${hooked ? 'h' : 'p'}`);
        const bodies = importBodies(target, skuPrefix(), rows, BATCH);
        receiver.reset();
        const webhookId = hooked ? await subscribe(receiverUrl()) : null;
        const client = service.client(1);
        const { ms } = await importRows(client, { modelId: target, prefix: '', rows, bodies });
        await client.close();
        let events = 0;
        if (webhookId) {
          await waitUntil(
            () => receiver.count('records.imported') >= bodies.length,
            drainTimeoutMs,
            () => `import: ${receiver.count('records.imported')} of ${bodies.length} records.imported events`,
          );
          events = receiver.count('records.imported');
          await unsubscribe(webhookId);
        }
        const rowsPerSecond = rows / (ms / 1000);
        importRuns.push({ hooked, rowsPerSecond, events, calls: bodies.length });
        console.log(
          `rep ${rep} import ${fmtInt(rows)} rows ${hooked ? 'one webhook' : 'no webhook'}: ${fmtInt(rowsPerSecond)} rows/s` +
            (hooked ? `; ${events} records.imported events for ${bodies.length} calls` : ''),
        );
      }
    }

    // 4. Receiver down (connection refused): the writes meanwhile; then back up, and the drain.
    const downRuns: LoadResult[] = [];
    // The same writes without a webhook just before each outage, so that both runs meet a records table of one size.
    const downBaseRuns: LoadResult[] = [];
    const upRuns: { backlog: number; firstAfterMs: number; drainPerSecond: number; serverCpuMicrosPerEvent: number }[] = [];
    for (let rep = 1; rep <= (steps.has(4) ? reps : 0); rep++) {
      const port = receiver.port;
      await receiver.close();
      receiver.reset();
      const downBase = await createLoad(downDurationMs);
      downBaseRuns.push(downBase);
      const webhookId = await subscribe(`http://127.0.0.1:${port}/hook`);
      const startCount = created;
      const down = await createLoad(downDurationMs);
      const backlog = created - startCount;
      downRuns.push(down);
      await receiver.listen(port);
      const upAt = performance.now();
      const cpuBefore = serverCpuMicros(service.server.pid);
      await waitUntil(
        () => receiver.count('record.created') >= backlog,
        drainTimeoutMs,
        () => `receiver back: ${receiver.count('record.created')} of ${backlog} events delivered`,
      );
      const drainCpuMicros = (serverCpuMicros(service.server.pid) - cpuBefore) / backlog;
      const first = smallest(receiver.arrivals);
      const last = largest(receiver.arrivals);
      const up = {
        backlog,
        firstAfterMs: first - upAt,
        drainPerSecond: backlog / Math.max(0.001, (last - first) / 1000),
        serverCpuMicrosPerEvent: drainCpuMicros,
      };
      const sorted = [...receiver.arrivals].sort((a, b) => a - b);
      // Where the drain's time goes: the wait after the first event (the trial delivery), then events per second.
      console.log(
        `rep ${rep} drain: server CPU ${drainCpuMicros.toFixed(0)} µs an event; second event ${fmtMs((sorted[1] ?? first) - first)} ms after the first; ` +
          `events per 500 ms: ${perInterval(sorted, 500).join(' ')}`,
      );
      upRuns.push(up);
      console.log(
        `rep ${rep} receiver down: ${fmtInt(down.requestsPerSecond)} creates/s (no webhook just before: ` +
          `${fmtInt(downBase.requestsPerSecond)}), p99 ${fmtMs(down.p99)} ms; back up: ` +
          `first of ${fmtInt(backlog)} events after ${fmtMs(up.firstAfterMs)} ms, drained at ${fmtInt(up.drainPerSecond)} events/s`,
      );
      await unsubscribe(webhookId);
    }

    // 5. A backlog that comes due at once (429 until a date), and its drain.
    const drainRuns: { backlog: number; drainPerSecond: number }[] = [];
    for (let rep = 1; rep <= (steps.has(5) ? reps : 0); rep++) {
      receiver.reset();
      // Whole seconds (an HTTP date has no fraction), a few seconds after the load ends.
      receiver.busyUntil = Math.ceil((Date.now() + warmupMs + durationMs + 3000) / 1000) * 1000;
      const webhookId = await subscribe(receiverUrl());
      const startCount = created;
      await createLoad(durationMs);
      const backlog = created - startCount;
      await waitUntil(
        () => receiver.count('record.created') >= backlog,
        drainTimeoutMs,
        () => `drain: ${receiver.count('record.created')} of ${backlog} events delivered`,
      );
      const first = smallest(receiver.arrivals);
      const last = largest(receiver.arrivals);
      const drainPerSecond = backlog / Math.max(0.001, (last - first) / 1000);
      drainRuns.push({ backlog, drainPerSecond });
      console.log(
        `rep ${rep} backlog of ${fmtInt(backlog)} events drained in ${fmtMs(last - first)} ms: ${fmtInt(drainPerSecond)} events/s`,
      );
      await unsubscribe(webhookId);
    }

    const base = spread(without.map((run) => run.requestsPerSecond));
    const hooked = spread(withHook.map((run) => run.requestsPerSecond));
    const downRps = spread(downRuns.map((run) => run.requestsPerSecond));
    const downBase = spread(downBaseRuns.map((run) => run.requestsPerSecond));
    const importPlain = spread(importRuns.filter((run) => !run.hooked).map((run) => run.rowsPerSecond));
    const importHooked = spread(importRuns.filter((run) => run.hooked).map((run) => run.rowsPerSecond));
    printTable(
      `Webhooks on ${kind}: creates × ${connections} for ${durationMs / 1000} s, import of ${fmtInt(rows)} rows — median (min–max) of ${reps}`,
      ['measure', 'no webhook', 'one webhook', 'ratio'],
      [
        ['record.create req/s', fmtSpread(base, fmtInt), fmtSpread(hooked, fmtInt), fmtRatio(hooked.median / base.median)],
        [
          'record.create req/s, receiver down (no webhook: the run just before each)',
          fmtSpread(downBase, fmtInt),
          fmtSpread(downRps, fmtInt),
          fmtRatio(downRps.median / downBase.median),
        ],
        [
          'import rows/s',
          fmtSpread(importPlain, fmtInt),
          fmtSpread(importHooked, fmtInt),
          fmtRatio(importHooked.median / importPlain.median),
        ],
      ],
    );
    printTable(
      `Delivery on ${kind}`,
      ['measure', 'value'],
      [
        [`event lag p50 (${lagDurationMs / 1000} s run, ${fmtInt(expected)} events)`, `${fmtMs(lag.p50)} ms`],
        ['event lag p99', `${fmtMs(lag.p99)} ms`],
        ['event lag max', `${fmtMs(lag.max)} ms`],
        [
          `receiver back up: first event after (backlogs ${upRuns.map((run) => fmtInt(run.backlog)).join(', ')})`,
          upRuns.map((run) => `${fmtMs(run.firstAfterMs)} ms`).join(', '),
        ],
        ['receiver back up: drain events/s', fmtSpread(spread(upRuns.map((run) => run.drainPerSecond)), fmtInt)],
        [
          `backlog due at once: drain events/s (backlogs ${drainRuns.map((run) => fmtInt(run.backlog)).join(', ')})`,
          fmtSpread(spread(drainRuns.map((run) => run.drainPerSecond)), fmtInt),
        ],
        [
          'records.imported events per import call',
          importRuns
            .filter((run) => run.hooked)
            .map((run) => `${run.events}/${run.calls}`)
            .join(', '),
        ],
        ['duplicate deliveries seen', String(receiver.duplicates)],
      ],
    );
    return {
      connections,
      durationSeconds: durationMs / 1000,
      lagDurationSeconds: lagDurationMs / 1000,
      rows,
      creates: { without, withHook, ratio: hooked.median / base.median },
      lag: { ...lag, events: expected, createsPerSecond: lagLoad?.requestsPerSecond ?? null },
      imports: importRuns,
      receiverDown: downRuns,
      receiverDownBase: downBaseRuns,
      receiverBackUp: upRuns,
      drain: drainRuns,
    };
  } finally {
    await service.dispose();
    await receiver.close();
  }
});
