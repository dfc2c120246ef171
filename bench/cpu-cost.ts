/**
 * Profiling aid (not one of the benchmarks): the server's CPU time per request — user + system time of the
 * server process from /proc/<pid>/stat, all its threads — for record.create and record.patch (closed loop,
 * --connections), record.list limit 100 at offset 0, the same page on the delivery route (`delivery`, no token) and
 * record.import of 1000 rows (one at a time). CPU time moves much less with the machine's load than wall-clock
 * figures do; the client's own CPU time per request is printed too (it shares the 2 cores in the benchmarks). In a
 * fresh database seeded with --size records: SQLite, or PostgreSQL with --db postgres (DATABASE_URL), where the
 * CPU time of the PostgreSQL backends serving the server's connections is printed as well, and the statements a
 * request runs (transactions committed in the database, so run it on a database no one else uses).
 *
 *   node --import tsx bench/cpu-cost.ts [--ops create,patch,list,delivery,import] [--connections 8] [--requests 3000]
 *     [--warmup 3] [--size 2000] [--db sqlite|postgres]
 *     [--webhook up|down]
 *
 * --webhook up|down: one webhook (all events) subscribed before the operations, to a receiver in this process that
 * answers 204 at once (up; the measure then lasts until every event of the measured requests has arrived, so the
 * server's delivery work is counted) or to a port that refuses connections (down). The receiver's CPU time is in
 * the client's.
 *
 * PERF_OUT=<prefix>: also `perf record -g` the server while measuring, into <prefix>.<op> (start the server with
 * BENCH_NODE_ARGS=--perf-basic-prof to see JavaScript function names).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Args } from './lib/args.js';
import { importBodies, productRow, seedCatalog, skuPrefix } from './lib/catalog.js';
import { cleanupAll } from './lib/cleanup.js';
import { closedLoop } from './lib/load.js';
import { startService } from './lib/run.js';
import type { DbKind } from './lib/database.js';
import pg from 'pg';

const CREATE = 'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }';
const PATCH = 'mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }';
const LIST =
  'query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { total hasMore items { id data createdAt updatedAt } } } }';
const LIST_IDS =
  'query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { hasMore items { id } } } }';
const DELIVERY_PATH = '/public/bench/main/graphql';
const DELIVERY_LIST = JSON.stringify({
  query:
    '{ public { model { records(modelSlug: "product", limit: 100, offset: 0) { total hasMore items { id data createdAt updatedAt } } } } }',
});
const IMPORT_ROWS = 1000;

/** CPU time of a process (or with `thread`, of that thread of it) so far, in microseconds (clock ticks of 10 ms). */
function cpuMicros(pid: number, thread?: number): { user: number; system: number } {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) * 10_000, system: Number(fields[12]) * 10_000 };
}

const args = new Args();
const ops = args.string('ops', 'create,patch,list').split(',');
const connections = args.int('connections', 8);
const requests = args.int('requests', 3000);
const warmupMs = args.int('warmup', 3) * 1000;
const size = args.int('size', 2000);
const kind = args.string('db', 'sqlite') as DbKind;
const webhook = args.string('webhook', 'none');

/** Deliveries the receiver has answered (204), and the events the requests sent so far made. */
let delivered = 0;
let events = 0;
const receiver = webhook === 'none' ? null : await listen();
const service = await startService(kind, webhook === 'none' ? {} : { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
const backends = kind === 'postgres' ? await postgresBackends(service.database.url) : null;
try {
  const setup = service.client(1);
  const { modelId } = await seedCatalog(setup, size, 'product', 'public');
  if (receiver) {
    const port = (receiver.address() as AddressInfo).port;
    if (webhook === 'down') await new Promise((resolve) => receiver.close(resolve));
    await setup.request('mutation ($input: CreateWebhookInput!) { webhook { create(input: $input) { webhook { id } } } }', {
      input: { url: `http://127.0.0.1:${port}/hook`, events: ['*'] },
    });
    console.log(`one webhook (all events), receiver ${webhook}`);
  }
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await setup.request<{ record: { list: { hasMore: boolean; items: { id: string }[] } } }>(LIST_IDS, {
      model: modelId,
      offset,
    });
    ids.push(...page.data.record.list.items.map((item) => item.id));
    if (!page.data.record.list.hasMore) break;
  }
  const prefix = skuPrefix();
  let created = 0;
  for (const op of ops) {
    const oneAtATime = op === 'list' || op === 'delivery' || op === 'import';
    const concurrency = oneAtATime ? 1 : connections;
    const measured = op === 'import' ? Math.max(1, Math.round(requests / 20)) : requests;
    const client = service.client(concurrency);
    const bodies = op === 'import' ? importBodies(modelId, skuPrefix(), (measured + 200) * IMPORT_ROWS, IMPORT_ROWS) : [];
    let sent = 0;
    const send = async (worker: number, n: number): Promise<number> => {
      const index = sent++;
      if (op !== 'list' && op !== 'delivery') events++;
      if (op === 'import') return (await client.send(bodies[index % bodies.length]!)).ms;
      if (op === 'create') return (await client.request(CREATE, { input: { modelId, data: productRow(prefix, created++) } })).ms;
      if (op === 'patch') {
        const id = ids[(worker + ((n * concurrency) % ids.length)) % ids.length]!;
        return (await client.request(PATCH, { input: { id, data: { price: (n % 1000) + 0.5, stock: n % 500 } } })).ms;
      }
      if (op === 'delivery') return (await client.sendDelivery(DELIVERY_PATH, DELIVERY_LIST)).ms;
      return (await client.request(LIST, { model: modelId, offset: 0 })).ms;
    };
    // Long enough for the JIT to settle, as in the benchmarks, whose cells run for seconds.
    await closedLoop(concurrency, op === 'import' ? Math.min(warmupMs, 1000) : warmupMs, 0, send);

    const perf = process.env.PERF_OUT
      ? spawn(
          'perf',
          [
            'record',
            '-e',
            'cpu-clock',
            '-F',
            '4000',
            '-g',
            '-p',
            String(service.server.pid),
            '-o',
            `${process.env.PERF_OUT}.${op}`,
          ],
          { stdio: 'ignore' },
        )
      : null;
    if (perf) await new Promise((resolve) => setTimeout(resolve, 300));
    const databaseBefore = await backends?.sample();
    const serverBefore = cpuMicros(service.server.pid);
    const mainBefore = cpuMicros(service.server.pid, service.server.pid);
    const clientBefore = process.cpuUsage();
    const first = sent;
    const started = performance.now();
    while (sent - first < measured) await closedLoop(concurrency, 0, 250, send);
    const seconds = (performance.now() - started) / 1000;
    const count = sent - first;
    if (webhook === 'up' && op !== 'list' && op !== 'delivery') {
      // Until every event so far has arrived.
      const waitStarted = performance.now();
      while (delivered < events && performance.now() - waitStarted < 60_000) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    const serverAfter = cpuMicros(service.server.pid);
    const mainAfter = cpuMicros(service.server.pid, service.server.pid);
    const main = (mainAfter.user + mainAfter.system - mainBefore.user - mainBefore.system) / count;
    const clientCpu = process.cpuUsage(clientBefore);
    const databaseAfter = await backends?.sample();
    if (perf) {
      perf.kill('SIGINT');
      await new Promise((resolve) => perf.once('exit', resolve));
    }
    const user = (serverAfter.user - serverBefore.user) / count;
    const system = (serverAfter.system - serverBefore.system) / count;
    const database = backends
      ? `, PostgreSQL backends' CPU ${(backends.spent(databaseBefore!, databaseAfter!) / count).toFixed(0)} µs`
      : '';
    console.log(
      `${op} × ${concurrency}: ${count} requests, server CPU ${(user + system).toFixed(0)} µs a request (user ${user.toFixed(0)}, system ` +
        `${system.toFixed(0)}; main thread ${main.toFixed(0)})${database}, client CPU ${((clientCpu.user + clientCpu.system) / count).toFixed(0)} µs, ${(count / seconds).toFixed(0)} requests/s` +
        (webhook === 'up' ? `, ${delivered} of ${events} events delivered` : ''),
    );
    await client.close();
  }
} finally {
  if (webhook === 'up') receiver?.close();
  await backends?.close();
  await service.dispose();
  await cleanupAll();
}

/**
 * The CPU time of the PostgreSQL backends connected to the service's database (all of them but this one: run it
 * on a database no one else is using), by process id; a backend that started in between counts from zero.
 */
async function postgresBackends(serviceUrl: string) {
  const url = new URL(serviceUrl);
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const total = (pid: number) => {
    try {
      const { user, system } = cpuMicros(pid);
      return user + system;
    } catch {
      return 0; // the backend has gone
    }
  };
  return {
    async sample(): Promise<Map<number, number>> {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      return new Map(rows.map((row) => [row.pid, total(row.pid)]));
    },
    spent(before: Map<number, number>, after: Map<number, number>): number {
      let sum = 0;
      for (const [pid, micros] of after) sum += micros - (before.get(pid) ?? 0);
      return sum;
    },
    close: () => client.end(),
  };
}

/** The webhook receiver: 204 at once to every POST, counted. */
async function listen(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      delivered++;
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
