/**
 * Dev tool: server CPU time (user+sys from /proc/<pid>/stat) per request for single writes and list reads.
 *   node --import tsx bench/cpu-cost.ts [--ops create,patch,list] [--connections 8] [--requests 3000] [--size 2000]
 */
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { importBodies, productRow, seedCatalog, skuPrefix } from './lib/catalog.js';
import { closedLoop } from './lib/load.js';
import { Args } from './lib/args.js';
import { startService } from './lib/run.js';
import { cleanupAll } from './lib/cleanup.js';

const CREATE = 'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }';
const PATCH = 'mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }';
const LIST = 'query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { total hasMore items { id data createdAt updatedAt } } } }';
const LIST_IDS = 'query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { hasMore items { id } } } }';

function cpuTicks(pid: number): { user: number; sys: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]), sys: Number(fields[12]) };
}
function selfCpu() { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }

const args = new Args();
const ops = args.string('ops', 'create,patch,list').split(',');
const connections = args.int('connections', 8);
const requests = args.int('requests', 3000);
const size = args.int('size', 2000);
const service = await startService('sqlite', { env: { ...process.env, ...(process.env.SERVER_LOG_LEVEL ? { LOG_LEVEL: process.env.SERVER_LOG_LEVEL } : {}) } });
try {
  const setup = service.client(1);
  const { modelId } = await seedCatalog(setup, size);
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await setup.request<{ record: { list: { hasMore: boolean; items: { id: string }[] } } }>(LIST_IDS, { model: modelId, offset });
    ids.push(...page.data.record.list.items.map((item) => item.id));
    if (!page.data.record.list.hasMore) break;
  }
  const prefix = skuPrefix();
  let created = 0;
  for (const op of ops) {
    const conns = op === 'list' || op === 'import' ? 1 : connections;
    const client = service.client(conns);
    let sent = 0;
    const bodies = op === 'import' ? importBodies(modelId, skuPrefix(), 300_000) : [];
    const send = async (worker: number, n: number) => {
      sent++;
      if (op === 'import') return (await client.send(bodies[sent - 1]!)).ms;
      if (op === 'create') return (await client.request(CREATE, { input: { modelId, data: productRow(prefix, created++) } })).ms;
      if (op === 'patch') {
        const id = ids[(worker + ((n * conns) % ids.length)) % ids.length]!;
        return (await client.request(PATCH, { input: { id, data: { price: (n % 1000) + 0.5, stock: n % 500 } } })).ms;
      }
      return (await client.request(LIST, { model: modelId, offset: 0 })).ms;
    };
    // warm-up: long enough for the JIT to settle (the benchmarks run each cell for seconds)
    await closedLoop(conns, args.int('warmup', 3) * 1000, 0, send);
    const perf = process.env.PERF_OUT ? spawn('perf', ['record', '-e', 'cpu-clock', '-F', '4000', '-g', '-p', String(service.server.pid), '-o', `${process.env.PERF_OUT}.${op}`], { stdio: 'ignore' }) : null;
    if (perf) await new Promise((r) => setTimeout(r, 300));
    const before = cpuTicks(service.server.pid); const cBefore = selfCpu(); const s0 = sent; const t0 = performance.now();
    const result = await closedLoop(conns, 0, Math.max(1000, 0), async (w, n) => send(w, n));
    // closedLoop ran for ~1 s; run more until `requests`
    while (sent - s0 < (op === 'import' ? requests / 20 : requests)) await closedLoop(conns, 0, 500, send);
    const after = cpuTicks(service.server.pid); const cAfter = selfCpu(); const n = sent - s0; const wall = performance.now() - t0;
    const user = ((after.user - before.user) * 10_000) / n; const sys = ((after.sys - before.sys) * 10_000) / n;
    if (perf) { perf.kill('SIGINT'); await new Promise((r) => perf.once('exit', r)); }
    console.log(`${op} ×${conns}: ${n} req, server CPU ${(user + sys).toFixed(0)} µs/req (user ${user.toFixed(0)}, sys ${sys.toFixed(0)}), client CPU ${(((cAfter - cBefore) * 1000) / n).toFixed(0)} µs/req, ${(n / (wall / 1000)).toFixed(0)} req/s wall (p50 first second ${result.p50.toFixed(2)} ms)`);
    await client.close();
  }
} finally {
  await service.dispose();
  await cleanupAll();
}
