/**
 * Profiling aid (not one of the benchmarks): instructions the server executes per request, counted by
 * valgrind's callgrind — the same figure however busy the machine is, so changes can be compared while others
 * use it. The server runs under callgrind (about 50 × slower) on a fresh database (SQLite, or PostgreSQL with
 * --db postgres and DATABASE_URL; PostgreSQL's own work is not counted) seeded with --size records, with counting off until --warmup requests of each operation have run (the JIT has settled); then
 * --requests requests are counted. Printed: instructions a request on the main (event-loop) thread, which bounds
 * throughput, and in all threads (GC and compiler threads too). System calls are not counted.
 * Compare runs with the same --ops: earlier operations change what the JIT made of the shared code.
 *
 *   node --import tsx bench/instructions.ts [--ops create,patch] [--requests 1000] [--warmup 3000] [--size 2000]
 *     [--db sqlite|postgres] [--webhook none|down|up]
 *
 * --webhook down: one webhook (all events) subscribed after the seed, to a port that refuses connections.
 * --webhook up: the same to a receiver in this process that answers 204 at once; the count then goes on until every
 * event written so far has arrived, and the deliveries counted are printed (the warm-up's late ones among them).
 *
 * Operations: create, patch (8 connections, --connections), list (limit 100, offset 0), delivery (the same page on
 * the delivery route by POST, no token), import (1000 rows a call; --requests / 50 calls are counted), deliver (the
 * delivery route's GET of a page of 100 records of the model, made public) and revalidate (the same GET with its
 * current ETag in If-None-Match: 304) and healthz (GET /healthz: the floor of any request). The callgrind files are kept (callgrind_annotate reads them).
 */
import { execFileSync, spawn } from 'node:child_process';
import { Pool } from 'undici';
import { mkdtempSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Args } from './lib/args.js';
import { importBodies, productRow, seedCatalog, skuPrefix } from './lib/catalog.js';
import { GqlClient } from './lib/client.js';
import { cleanupAll } from './lib/cleanup.js';
import { createDatabase, type DbKind } from './lib/database.js';
import { bootstrap, REPO_ROOT } from './lib/server.js';

const CREATE = 'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }';
const PATCH = 'mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }';
const LIST =
  'query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { total hasMore items { id data createdAt updatedAt } } } }';
const LIST_IDS =
  'query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { hasMore items { id } } } }';
const DELIVERY_POST_PATH = '/public/bench/main/graphql';
const DELIVERY_LIST = JSON.stringify({
  query:
    '{ public { model { records(modelSlug: "product", limit: 100, offset: 0) { total hasMore items { id data createdAt updatedAt } } } } }',
});
const IMPORT_ROWS = 1000;
const DELIVERY_PAGE =
  'query ($slug: String!) { public { model { records(modelSlug: $slug, limit: 100) { total hasMore items { id data createdAt updatedAt } } } } }';
const DELIVERY_PATH = `/public/bench/main/graphql?${new URLSearchParams({ query: DELIVERY_PAGE, variables: '{"slug":"product"}' })}`;

const args = new Args();
const ops = args.string('ops', 'create,patch').split(',');
const requests = args.int('requests', 1000);
const warmup = args.int('warmup', 3000);
const size = args.int('size', 2000);
const connections = args.int('connections', 8);
const kind = args.string('db', 'sqlite') as DbKind;
const webhook = args.string('webhook', 'none');

const outDir = mkdtempSync(join(tmpdir(), 'cs-callgrind-'));
const database = await createDatabase(kind);
const workspace = await bootstrap(database.url);
const port = 20_000 + Math.floor(Math.random() * 20_000);
const child = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    '--smc-check=all-non-file',
    '--instr-atstart=no',
    '--separate-threads=yes',
    `--callgrind-out-file=${outDir}/cg.out.%p`,
    process.execPath,
    // BENCH_NODE_ARGS: more node flags for the server (e.g. --perf-basic-prof, whose /tmp/perf-<pid>.map names the
    // JIT-compiled functions callgrind lists by address).
    ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : []),
    'bin/content-service.js',
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--database',
    database.url,
    '--write-budget',
    '1000000000',
    '--no-init',
  ],
  {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: webhook === 'none' ? process.env : { ...process.env, WEBHOOK_ALLOW_PRIVATE: 'true' },
  },
);
await new Promise<void>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('the server did not start under valgrind in 5 minutes')), 300_000);
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.includes('"listening"')) {
      clearTimeout(timer);
      resolve();
    }
  });
  child.once('exit', () => reject(new Error('the server exited')));
});
const control = (...flags: string[]) => execFileSync('callgrind_control', [...flags, String(child.pid)], { stdio: 'ignore' });
const baseUrl = `http://127.0.0.1:${port}`;
const setup = new GqlClient(baseUrl, workspace, 2);
let receiver: Server | null = null;
/** Deliveries the receiver of --webhook up has answered. */
let delivered = 0;
/** Events written by the operations since the webhook was made: one a create, a patch or an import call. */
let eventsWritten = 0;
try {
  const { modelId } = await seedCatalog(setup, size, 'product', 'public');
  if (webhook === 'down') {
    // A port that refuses connections: the port of a server opened and closed again.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await setup.request('mutation ($input: CreateWebhookInput!) { webhook { create(input: $input) { webhook { id } } } }', {
      input: { url: `http://127.0.0.1:${closedPort}/hook`, events: ['*'] },
    });
    console.log('one webhook (all events), receiver down');
  } else if (webhook === 'up') {
    receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        delivered++;
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    await setup.request('mutation ($input: CreateWebhookInput!) { webhook { create(input: $input) { webhook { id } } } }', {
      input: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['*'] },
    });
    console.log('one webhook (all events), receiver up');
  } else if (webhook !== 'none') throw new Error('--webhook: none, down or up');
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await setup.request<{ record: { list: { hasMore: boolean; items: { id: string }[] } } }>(LIST_IDS, {
      model: modelId,
      offset,
    });
    ids.push(...page.data.record.list.items.map((item) => item.id));
    if (!page.data.record.list.hasMore) break;
  }
  const delivery = new Pool(baseUrl, { connections: 1, pipelining: 1, keepAliveTimeout: 60_000 });
  if (ops.includes('deliver') || ops.includes('revalidate')) {
    await setup.request('mutation ($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }', {
      input: { id: modelId, deliveryAccess: 'public' },
    });
  }
  /** The page's current tag (the writes of an earlier operation moved it). */
  const currentTag = async () => {
    const response = await delivery.request({ path: DELIVERY_PATH, method: 'GET' });
    await response.body.text();
    return String(response.headers.etag);
  };
  let etag = '';
  const deliver = async (ifNoneMatch: string | null) => {
    const headers = ifNoneMatch === null ? {} : { 'if-none-match': ifNoneMatch };
    const response = await delivery.request({ path: DELIVERY_PATH, method: 'GET', headers });
    await response.body.text();
    if (response.statusCode !== (ifNoneMatch === null ? 200 : 304)) throw new Error(`delivery: HTTP ${response.statusCode}`);
  };
  const healthz = async () => {
    const response = await delivery.request({ path: '/healthz', method: 'GET' });
    await response.body.text();
    if (response.statusCode !== 200) throw new Error(`healthz: HTTP ${response.statusCode}`);
  };
  const prefix = skuPrefix();
  let created = 0;
  for (const op of ops) {
    const concurrency =
      op === 'list' || op === 'delivery' || op === 'import' || op === 'deliver' || op === 'revalidate' || op === 'healthz'
        ? 1
        : connections;
    const perCall = op === 'import' ? 50 : 1;
    const warmCalls = Math.round(warmup / perCall);
    const countedCalls = Math.max(1, Math.round(requests / perCall));
    const client = new GqlClient(baseUrl, workspace, concurrency);
    const bodies =
      op === 'import' ? importBodies(modelId, skuPrefix(), (warmCalls + countedCalls) * IMPORT_ROWS, IMPORT_ROWS) : [];
    let next = 0;
    if (op === 'revalidate') etag = await currentTag();
    const one = (n: number) => {
      if (op === 'create' || op === 'patch' || op === 'import') eventsWritten++;
      if (op === 'create') return client.request(CREATE, { input: { modelId, data: productRow(prefix, created++) } });
      if (op === 'patch')
        return client.request(PATCH, { input: { id: ids[n % ids.length]!, data: { price: (n % 1000) + 0.5, stock: n % 500 } } });
      if (op === 'import') return client.send(bodies[n]!);
      if (op === 'delivery') return client.sendDelivery(DELIVERY_POST_PATH, DELIVERY_LIST);
      if (op === 'deliver') return deliver(null);
      if (op === 'revalidate') return deliver(etag);
      if (op === 'healthz') return healthz();
      return client.request(LIST, { model: modelId, offset: 0 });
    };
    const runUntil = async (total: number) => {
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < total) await one(next++);
        }),
      );
    };
    await runUntil(warmCalls);
    control('--instr=on');
    control('--zero');
    const start = next;
    const deliveredBefore = delivered;
    await runUntil(next + countedCalls);
    if (receiver) {
      const started = Date.now();
      while (delivered < eventsWritten && Date.now() - started < 600_000) await new Promise((resolve) => setTimeout(resolve, 20));
      console.log(
        `${op}: ${delivered - deliveredBefore} deliveries while counting (${delivered} of ${eventsWritten} events so far)`,
      );
    }
    control('--dump');
    control('--instr=off');
    let total = 0;
    let main = 0;
    for (const name of readdirSync(outDir).filter((file) => file.startsWith('cg.out'))) {
      const text = readFileSync(join(outDir, name), 'utf8');
      const count = Number((/^summary: (\d+)/m.exec(text) ?? /^totals: (\d+)/m.exec(text))?.[1] ?? 0);
      total += count;
      if (name.endsWith('-01')) main += count;
      renameSync(join(outDir, name), join(outDir, `${op}.${name}`));
    }
    const calls = next - start;
    console.log(
      `${op}: ${calls} calls, ${(main / calls / 1000).toFixed(0)} k instructions a call on the main thread, ${(total / calls / 1000).toFixed(0)} k in all threads`,
    );
    await client.close();
  }
  await delivery.close();
} finally {
  await setup.close();
  receiver?.close();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await database.dispose();
  await cleanupAll();
  console.log(`callgrind files: ${outDir}`);
}
