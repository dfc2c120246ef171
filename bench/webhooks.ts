/**
 * Webhooks: what delivering an event costs the server, how late events arrive, and how fast a backlog drains
 * (issue 37, item 5; the issue-15 ratio "creates ≥ 0.9× with the receiver up" is retired: the receiver shares the
 * machine's cores).
 *
 * 1. Server CPU time per delivered event (goal ≤ 150 µs): `--events` (5,000) single creates at `--connections` (8),
 *    closed loop, with one webhook (record.created) to a fast receiver, until every event has arrived; and the same
 *    creates with no webhook subscribed, alternating, `--reps` (3) times. The server process's CPU time (user + system,
 *    all its threads, /proc/<pid>/stat) over each window; the delivery's own cost is the difference a create.
 * 2. Delivery lag p99 at half the maximum create rate (goal < 2 s): the maximum is step 1's creates/s with the webhook
 *    (or `--rate`); creates at half of it on a fixed schedule (open loop) for `--lag-duration` s (20), and per event
 *    its arrival at the receiver minus its `timestamp` (the write's time), p50/p95/p99/max. The same paced creates
 *    without a webhook first, for the server CPU a create costs at that rate with and without delivery.
 * 3. Drain of a `--backlog` (100,000) event backlog (goal ≥ 1,000 events/s): the webhook's port refuses connections
 *    (the worker pauses the webhook and puts its deliveries off, docs/webhooks.md) while the creates are made; then
 *    the receiver listens on that port again, and the time until the last event has arrived, from that moment
 *    (the goal's figure, which includes the wait for the worker's next try of the paused webhook, at most the first
 *    retry delay) and from the first event's arrival.
 *
 * The receiver is a node:http server in this process answering 204 at once (bench/lib/webhook-receiver.ts). Every
 * figure is printed with its goal and whether it was met; a missed goal is not a failure exit.
 *
 *   node --import tsx bench/webhooks.ts [--db sqlite|postgres|both] [--events 5000] [--connections 8] [--reps 3]
 *     [--lag-duration 20] [--backlog 100000] [--steps cpu,lag,drain] [--rate N] [--drain-timeout 900]
 *
 * PostgreSQL needs DATABASE_URL. BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the server (bench/lib/server.ts).
 */
import { performance } from 'node:perf_hooks';
import type { Args } from './lib/args.js';
import { createProductModel, productRow, skuPrefix } from './lib/catalog.js';
import type { GqlClient } from './lib/client.js';
import { fixedCount, paced, processCpuMicros, type CountResult, type PacedResult } from './lib/paced.js';
import { runBenchmark, startService, type Service } from './lib/run.js';
import { largest, percentile, smallest, spread, type Spread } from './lib/stats.js';
import { fmtInt, fmtMs, fmtSpread, printTable } from './lib/table.js';
import { WebhookReceiver } from './lib/webhook-receiver.js';

const CREATE = 'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }';
const CREATE_WEBHOOK = 'mutation ($input: CreateWebhookInput!) { webhook { create(input: $input) { webhook { id } } } }';
const DELETE_WEBHOOK = 'mutation ($id: ID!) { webhook { delete(id: $id) { deleted } } }';
const GOAL_CPU_MICROS = 150;
const GOAL_LAG_P99_MS = 2000;
const GOAL_DRAIN_PER_SECOND = 1000;
/** Idle time at the end of each CPU window (with and without a webhook alike), for the work that trails the answers. */
const SETTLE_MS = 300;
/** No delivery for this long while events are missing: the run is stuck. */
const STALL_MS = 60_000;

interface Options {
  connections: number;
  events: number;
  lagDurationMs: number;
  backlog: number;
  drainTimeoutMs: number;
  rate: number;
  steps: Set<string>;
}

function readOptions(args: Args): Options {
  return {
    connections: args.int('connections', 8),
    events: args.int('events', 5000),
    lagDurationMs: args.int('lag-duration', 20) * 1000,
    backlog: args.int('backlog', 100_000),
    drainTimeoutMs: args.int('drain-timeout', 900) * 1000,
    rate: args.int('rate', 0),
    steps: new Set(args.string('steps', 'cpu,lag,drain').split(',')),
  };
}

/** The service with a product model, and what the steps do with it. */
interface Bench {
  service: Service;
  options: Options;
  /** A client of `connections` connections; closed when the service is disposed. */
  client(connections: number): GqlClient;
  /** A create's sender on that client: each call creates the next record and resolves with its latency, ms. */
  creates(client: GqlClient): (n: number) => Promise<number>;
  subscribe(url: string): Promise<string>;
  unsubscribe(id: string): Promise<void>;
  cpu(): number;
}

async function prepare(service: Service, options: Options): Promise<Bench> {
  const setup = service.client(1);
  const modelId = await createProductModel(setup);
  const prefix = skuPrefix();
  let created = 0;
  return {
    service,
    options,
    client: (connections) => service.client(connections),
    creates: (client) => async () =>
      (await client.request(CREATE, { input: { modelId, data: productRow(prefix, created++) } })).ms,
    async subscribe(url) {
      const answer = await setup.request<{ webhook: { create: { webhook: { id: string } } } }>(CREATE_WEBHOOK, {
        input: { url, events: ['record.created'], description: 'bench' },
      });
      return answer.data.webhook.create.webhook.id;
    },
    async unsubscribe(id) {
      await setup.request(DELETE_WEBHOOK, { id });
    },
    cpu: () => processCpuMicros(service.server.pid),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface CpuRun {
  hooked: boolean;
  creates: CountResult;
  cpuMicros: number;
  cpuMicrosPerCreate: number;
  /** From the last create's answer to the last event's arrival, ms (with the webhook). */
  lastEventAfterMs: number | null;
}

/** One window: `events` creates at `connections`, with or without the webhook, until every event has arrived. */
async function cpuWindow(bench: Bench, receiver: WebhookReceiver, hooked: boolean, events: number): Promise<CpuRun> {
  const client = bench.client(bench.options.connections);
  receiver.reset();
  const webhookId = hooked ? await bench.subscribe(receiver.url) : null;
  await sleep(SETTLE_MS);
  const before = bench.cpu();
  const creates = await fixedCount(bench.options.connections, events, bench.creates(client));
  const waited = hooked ? await receiver.waitForCreated(events, bench.options.drainTimeoutMs, STALL_MS) : null;
  await sleep(SETTLE_MS);
  const cpuMicros = bench.cpu() - before;
  if (webhookId) await bench.unsubscribe(webhookId);
  await client.close();
  return { hooked, creates, cpuMicros, cpuMicrosPerCreate: cpuMicros / events, lastEventAfterMs: waited };
}

async function measureCpu(bench: Bench, receiver: WebhookReceiver, reps: number) {
  const { events, connections } = bench.options;
  // Warm-up (not counted): both paths compiled and the tables past their first pages.
  for (const hooked of [true, false]) await cpuWindow(bench, receiver, hooked, Math.min(events, 2000));
  const runs: CpuRun[] = [];
  const differences: number[] = [];
  for (let rep = 1; rep <= reps; rep++) {
    // The order alternates: the second window of a rep writes into a larger records table.
    const pair: CpuRun[] = [];
    for (const hooked of rep % 2 === 1 ? [false, true] : [true, false]) {
      const run = await cpuWindow(bench, receiver, hooked, events);
      pair.push(run);
      console.log(
        `rep ${rep} ${fmtInt(events)} creates × ${connections}, ${hooked ? 'one webhook' : 'no webhook'}: ` +
          `${fmtInt(run.creates.requestsPerSecond)} creates/s, p99 ${fmtMs(run.creates.p99)} ms; server CPU ` +
          `${fmtInt(run.cpuMicrosPerCreate)} µs a create` +
          (run.lastEventAfterMs === null ? '' : `; last event ${fmtMs(run.lastEventAfterMs)} ms after the last create`),
      );
    }
    const [plain, hooked] = pair[0]!.hooked ? [pair[1]!, pair[0]!] : [pair[0]!, pair[1]!];
    differences.push(hooked.cpuMicrosPerCreate - plain.cpuMicrosPerCreate);
    runs.push(...pair);
  }
  const of = (hooked: boolean, pick: (run: CpuRun) => number) => spread(runs.filter((run) => run.hooked === hooked).map(pick));
  return {
    events,
    connections,
    runs,
    withWebhookMicrosPerCreate: of(true, (run) => run.cpuMicrosPerCreate),
    withoutWebhookMicrosPerCreate: of(false, (run) => run.cpuMicrosPerCreate),
    deliveryMicrosPerEvent: spread(differences),
    perRepetitionDeliveryMicros: differences,
    createsPerSecondWithWebhook: of(true, (run) => run.creates.requestsPerSecond),
    createsPerSecondWithout: of(false, (run) => run.creates.requestsPerSecond),
  };
}

interface PacedRun {
  load: PacedResult;
  cpuMicrosPerCreate: number;
}

/** Creates at `perSecond` for lag-duration, then `until(the creates)`; the server CPU a create over it all. */
async function pacedWindow(bench: Bench, perSecond: number, until: (load: PacedResult) => Promise<unknown>): Promise<PacedRun> {
  // Enough connections that the schedule does not wait for answers.
  const client = bench.client(bench.options.connections * 4);
  const before = bench.cpu();
  const load = await paced(perSecond, bench.options.lagDurationMs, bench.creates(client));
  await until(load);
  await sleep(SETTLE_MS);
  const cpuMicros = bench.cpu() - before;
  await client.close();
  return { load, cpuMicrosPerCreate: cpuMicros / load.requests };
}

async function measureLag(bench: Bench, receiver: WebhookReceiver, maxRate: number) {
  const perSecond = maxRate / 2;
  const seconds = bench.options.lagDurationMs / 1000;
  const plain = await pacedWindow(bench, perSecond, async () => {});
  console.log(
    `${fmtInt(plain.load.requests)} creates at ${fmtInt(perSecond)}/s for ${seconds} s, no webhook: server CPU ` +
      `${fmtInt(plain.cpuMicrosPerCreate)} µs a create; create p99 ${fmtMs(plain.load.p99)} ms`,
  );
  receiver.reset();
  const webhookId = await bench.subscribe(receiver.url);
  await sleep(SETTLE_MS);
  const hooked = await pacedWindow(bench, perSecond, (load) =>
    receiver.waitForCreated(load.requests, bench.options.drainTimeoutMs, STALL_MS),
  );
  const events = hooked.load.requests;
  await bench.unsubscribe(webhookId);
  const lags = receiver.lags;
  const lag = {
    events: lags.length,
    p50: percentile(lags, 50),
    p95: percentile(lags, 95),
    p99: percentile(lags, 99),
    max: largest(lags),
  };
  console.log(
    `${fmtInt(events)} creates at ${fmtInt(perSecond)}/s for ${seconds} s (started at ${fmtInt(hooked.load.startedPerSecond)}/s, ` +
      `the last ${fmtMs(hooked.load.lateMs)} ms late), one webhook: lag p50 ${fmtMs(lag.p50)} ms, p95 ${fmtMs(lag.p95)} ms, ` +
      `p99 ${fmtMs(lag.p99)} ms, max ${fmtMs(lag.max)} ms; server CPU ${fmtInt(hooked.cpuMicrosPerCreate)} µs a create; ` +
      `create p99 ${fmtMs(hooked.load.p99)} ms`,
  );
  return {
    maxCreatesPerSecond: maxRate,
    createsPerSecond: perSecond,
    durationSeconds: seconds,
    lagMs: lag,
    withWebhook: hooked,
    withoutWebhook: plain,
    deliveryMicrosPerEvent: hooked.cpuMicrosPerCreate - plain.cpuMicrosPerCreate,
  };
}

async function measureDrain(bench: Bench) {
  const { backlog, connections, drainTimeoutMs } = bench.options;
  const receiver = new WebhookReceiver();
  await receiver.listen();
  const port = receiver.port;
  await receiver.close();
  const webhookId = await bench.subscribe(receiver.url);
  const client = bench.client(connections);
  const down = await fixedCount(connections, backlog, bench.creates(client));
  await client.close();
  console.log(
    `receiver down: ${fmtInt(backlog)} creates × ${connections} at ${fmtInt(down.requestsPerSecond)} creates/s, p99 ${fmtMs(down.p99)} ms`,
  );
  try {
    await receiver.listen(port);
    const upAt = performance.now();
    const before = bench.cpu();
    const progress = setInterval(
      () =>
        console.log(
          `  drain: ${fmtInt(receiver.createdCount)} of ${fmtInt(backlog)} after ${fmtMs(performance.now() - upAt)} ms`,
        ),
      10_000,
    );
    try {
      await receiver.waitForCreated(backlog, drainTimeoutMs, STALL_MS);
    } finally {
      clearInterval(progress);
    }
    const cpuMicros = bench.cpu() - before;
    const first = smallest(receiver.arrivals);
    const last = largest(receiver.arrivals);
    const drain = {
      backlog,
      createsPerSecondReceiverDown: down.requestsPerSecond,
      firstEventAfterMs: first - upAt,
      lastEventAfterMs: last - upAt,
      perSecondFromUp: backlog / ((last - upAt) / 1000),
      perSecondFromFirstEvent: backlog / Math.max(0.001, (last - first) / 1000),
      serverCpuMicrosPerEvent: cpuMicros / backlog,
      duplicates: receiver.duplicates,
    };
    console.log(
      `receiver back up: first event after ${fmtMs(drain.firstEventAfterMs)} ms, the last after ${fmtMs(drain.lastEventAfterMs)} ms: ` +
        `${fmtInt(drain.perSecondFromUp)} events/s (${fmtInt(drain.perSecondFromFirstEvent)} from the first event); ` +
        `server CPU ${fmtInt(drain.serverCpuMicrosPerEvent)} µs an event; ${drain.duplicates} duplicates`,
    );
    return drain;
  } finally {
    await bench.unsubscribe(webhookId);
    await receiver.close();
  }
}

type CpuFigures = Awaited<ReturnType<typeof measureCpu>>;
type LagFigures = Awaited<ReturnType<typeof measureLag>>;
type DrainFigures = Awaited<ReturnType<typeof measureDrain>>;

function goals(cpu: CpuFigures | null, lag: LagFigures | null, drain: DrainFigures | null) {
  return {
    serverCpuPerDeliveredEvent: cpu && {
      micros: cpu.deliveryMicrosPerEvent.median,
      goal: `≤ ${GOAL_CPU_MICROS} µs`,
      met: cpu.deliveryMicrosPerEvent.median <= GOAL_CPU_MICROS,
    },
    lagP99AtHalfMaxRate: lag && { ms: lag.lagMs.p99, goal: `< ${GOAL_LAG_P99_MS} ms`, met: lag.lagMs.p99 < GOAL_LAG_P99_MS },
    backlogDrain: drain && {
      eventsPerSecond: drain.perSecondFromUp,
      goal: `≥ ${fmtInt(GOAL_DRAIN_PER_SECOND)} events/s`,
      met: drain.perSecondFromUp >= GOAL_DRAIN_PER_SECOND,
    },
  };
}

function printSummary(kind: string, cpu: CpuFigures | null, lag: LagFigures | null, drain: DrainFigures | null): void {
  const met = (value: boolean) => (value ? 'met' : 'MISSED');
  const µs = (value: number) => `${fmtInt(value)} µs`;
  const rows: string[][] = [];
  const results = goals(cpu, lag, drain);
  if (cpu && results.serverCpuPerDeliveredEvent) {
    const reps = `median (min–max) of ${cpu.runs.length / 2}`;
    rows.push(
      [
        `server CPU a create, one webhook (${fmtInt(cpu.events)} creates × ${cpu.connections}; ${reps})`,
        fmtSpread(cpu.withWebhookMicrosPerCreate, µs),
        '',
        '',
      ],
      ['server CPU a create, no webhook', fmtSpread(cpu.withoutWebhookMicrosPerCreate, µs), '', ''],
      [
        'server CPU per delivered event (the difference)',
        fmtSpread(cpu.deliveryMicrosPerEvent, µs),
        results.serverCpuPerDeliveredEvent.goal,
        met(results.serverCpuPerDeliveredEvent.met),
      ],
      [
        'creates/s, one webhook (the maximum) / no webhook',
        `${rate(cpu.createsPerSecondWithWebhook)} / ${rate(cpu.createsPerSecondWithout)}`,
        '',
        '',
      ],
    );
  }
  if (lag && results.lagP99AtHalfMaxRate) {
    rows.push(
      [
        `delivery lag at ${fmtInt(lag.createsPerSecond)} creates/s for ${lag.durationSeconds} s: p50 / p95`,
        `${fmtMs(lag.lagMs.p50)} / ${fmtMs(lag.lagMs.p95)} ms`,
        '',
        '',
      ],
      ['delivery lag p99', `${fmtMs(lag.lagMs.p99)} ms`, results.lagP99AtHalfMaxRate.goal, met(results.lagP99AtHalfMaxRate.met)],
      ['delivery lag max', `${fmtMs(lag.lagMs.max)} ms`, '', ''],
      [
        'server CPU a create at that rate, one webhook / none (difference)',
        `${µs(lag.withWebhook.cpuMicrosPerCreate)} / ${µs(lag.withoutWebhook.cpuMicrosPerCreate)} (${µs(lag.deliveryMicrosPerEvent)})`,
        '',
        '',
      ],
    );
  }
  if (drain && results.backlogDrain) {
    rows.push(
      [
        `drain of ${fmtInt(drain.backlog)} events from the receiver's return`,
        `${fmtInt(drain.perSecondFromUp)} events/s`,
        results.backlogDrain.goal,
        met(results.backlogDrain.met),
      ],
      [
        '  from the first event (which came after)',
        `${fmtInt(drain.perSecondFromFirstEvent)} events/s (${fmtMs(drain.firstEventAfterMs)} ms)`,
        '',
        '',
      ],
      ['  server CPU an event while draining', µs(drain.serverCpuMicrosPerEvent), '', ''],
      ['  creates/s with the receiver down', fmtInt(drain.createsPerSecondReceiverDown), '', ''],
    );
  }
  printTable(`Webhooks on ${kind}`, ['figure', 'value', 'goal', ''], rows);
}

const rate = (value: Spread) => fmtSpread(value, fmtInt);

if (/\bboth\b/.test(process.argv.join(' ')) && !/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '')) {
  console.log('--db both: DATABASE_URL names no PostgreSQL database; SQLite only');
}

await runBenchmark('webhooks', async ({ args, kind, reps }) => {
  const options = readOptions(args);
  const receiver = new WebhookReceiver();
  await receiver.listen();
  const service = await startService(kind, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  try {
    const bench = await prepare(service, options);
    const cpu = options.steps.has('cpu') ? await measureCpu(bench, receiver, reps) : null;
    const maxRate = options.rate || cpu?.createsPerSecondWithWebhook.median || 0;
    if (options.steps.has('lag') && !maxRate) console.log('lag: skipped (it needs the cpu step or --rate)');
    const lag = options.steps.has('lag') && maxRate ? await measureLag(bench, receiver, maxRate) : null;
    const drain = options.steps.has('drain') ? await measureDrain(bench) : null;
    printSummary(kind, cpu, lag, drain);
    return { options: { ...options, steps: [...options.steps] }, goals: goals(cpu, lag, drain), cpu, lag, drain };
  } finally {
    await service.dispose();
    await receiver.close();
  }
});
