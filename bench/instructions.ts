/**
 * Dev tool: instructions the server executes per request (valgrind --tool=callgrind), stable under machine load.
 * The server runs under callgrind with instrumentation off until the measured requests start.
 *   node --import tsx bench/instructions.ts [--ops create,patch,list,import] [--requests 500] [--warmup 1500] [--size 2000]
 */
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Args } from './lib/args.js';
import { importBodies, productRow, seedCatalog, skuPrefix } from './lib/catalog.js';
import { GqlClient } from './lib/client.js';
import { cleanupAll } from './lib/cleanup.js';
import { createDatabase } from './lib/database.js';
import { bootstrap, REPO_ROOT } from './lib/server.js';

const CREATE = 'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }';
const PATCH = 'mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }';
const LIST = 'query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { total hasMore items { id data createdAt updatedAt } } } }';
const LIST_IDS = 'query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { hasMore items { id } } } }';

const args = new Args();
const ops = args.string('ops', 'create,patch,list').split(',');
const requests = args.int('requests', 500);
const warmup = args.int('warmup', 1500);
const size = args.int('size', 2000);
const connections = args.int('connections', 8);
const outDir = mkdtempSync(join(tmpdir(), 'cs-callgrind-'));
const database = await createDatabase('sqlite');
const workspace = await bootstrap(database.url);
const port = 20000 + Math.floor(Math.random() * 20000);
const child = spawn('valgrind', ['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${outDir}/cg.out.%p`, process.execPath,
  'bin/content-service.js', 'serve', '--host', '127.0.0.1', '--port', String(port), '--database', database.url, '--write-budget', '1000000000', '--no-init'],
  { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
await new Promise<void>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('no start')), 300_000);
  createInterface({ input: child.stdout! }).on('line', (line) => { if (line.includes('"listening"')) { clearTimeout(timer); resolve(); } });
  child.once('exit', () => reject(new Error('server exited')));
});
const control = (...flags: string[]) => execFileSync('callgrind_control', [...flags, String(child.pid)], { encoding: 'utf8' });
const setup = new GqlClient(`http://127.0.0.1:${port}`, workspace, 2);
try {
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
    const client = new GqlClient(`http://127.0.0.1:${port}`, workspace, conns);
    const count = op === 'import' ? Math.max(1, Math.round(requests / 50)) : requests;
    const bodies = op === 'import' ? importBodies(modelId, skuPrefix(), (Math.round(warmup / 50) + count) * 1000) : [];
    let next = 0;
    const one = async (n: number) => {
      if (op === 'create') return client.request(CREATE, { input: { modelId, data: productRow(prefix, created++) } });
      if (op === 'patch') return client.request(PATCH, { input: { id: ids[n % ids.length]!, data: { price: (n % 1000) + 0.5, stock: n % 500 } } });
      if (op === 'import') return client.send(bodies[n]!);
      return client.request(LIST, { model: modelId, offset: 0 });
    };
    const batch = async (total: number) => {
      await Promise.all(Array.from({ length: conns }, async () => { while (next < total) await one(next++); }));
    };
    await batch(op === 'import' ? Math.round(warmup / 50) : warmup);
    control('--instr=on');
    control('--zero');
    const start = next;
    await batch(next + count);
    control('--dump');
    control('--instr=off');
    const files = readdirSync(outDir).filter((name) => name.startsWith('cg.out'));
    let total = 0;
    let main = 0;
    for (const name of files) {
      const text = readFileSync(join(outDir, name), 'utf8');
      const count = Number((text.match(/^summary: (\d+)/m) ?? text.match(/^totals: (\d+)/m))?.[1] ?? 0);
      total += count;
      if (/-01$/.test(name)) main += count;
      execFileSync('mv', [join(outDir, name), join(outDir, `${op}.${name}`)]);
    }
    const n = next - start;
    console.log(`${op}: ${n} requests, ${(main / n / 1000).toFixed(0)} k instructions/request on the main thread, ${(total / n / 1000).toFixed(0)} k in all threads`);
    await client.close();
  }
} finally {
  await setup.close();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await database.dispose();
  await cleanupAll();
  console.log(`callgrind files in ${outDir}`);
}
