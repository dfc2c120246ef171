/**
 * History (issue 39): what keeping revisions costs the writes that make them. Two servers on fresh databases, one
 * keeping history (--history-keep 100, the default) and one not (HISTORY_KEEP=0), alternating, `--reps` (3) times:
 *
 * 1. Import: `--rows` (20,000) rows in 1,000-row calls, 2 in flight: rows/s (goal with history ≥ 0.95× without; an
 *    import stores no second copy of the data, so the two should be alike).
 * 2. Patch: `--patches` (4,000) patches of the imported records at `--connections` (8), closed loop, each record
 *    patched once or more: patches/s and server CPU per patch (user + system, all threads, /proc/<pid>/stat). The
 *    goal is a patch's cost with history ≤ 1.3× without; the cost is the server CPU per patch, and the p50 latency
 *    is printed beside it.
 *
 *   node --import tsx bench/history.ts [--db sqlite|postgres|both] [--rows 20000] [--patches 4000] [--connections 8] [--reps 3]
 */
import type { Args } from './lib/args.js';
import { createProductModel, importBodies, importRows, skuPrefix } from './lib/catalog.js';
import { fixedCount, processCpuMicros } from './lib/paced.js';
import { runBenchmark, startService, type Service } from './lib/run.js';
import { spread } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, fmtSpread, printTable } from './lib/table.js';
import type { DbKind } from './lib/database.js';

const PATCH = 'mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }';
const IDS =
  'query ($modelId: ID!, $offset: Int) { record { list(modelId: $modelId, limit: 100, offset: $offset) { items { id } } } }';
const GOAL_IMPORT_RATIO = 0.95;
const GOAL_PATCH_COST_RATIO = 1.3;

interface Options {
  rows: number;
  patches: number;
  connections: number;
}

interface Run {
  importRowsPerSecond: number;
  patchesPerSecond: number;
  patchP50Ms: number;
  cpuMicrosPerPatch: number;
}

function readOptions(args: Args): Options {
  return { rows: args.int('rows', 20_000), patches: args.int('patches', 4000), connections: args.int('connections', 8) };
}

async function recordIds(service: Service, modelId: string, count: number): Promise<string[]> {
  const client = service.client(1);
  const ids: string[] = [];
  for (let offset = 0; ids.length < count; offset += 100) {
    const page = await client.request<{ record: { list: { items: { id: string }[] } } }>(IDS, { modelId, offset });
    if (page.data.record.list.items.length === 0) break;
    ids.push(...page.data.record.list.items.map((item) => item.id));
  }
  return ids;
}

async function once(kind: DbKind, keep: boolean, options: Options): Promise<Run> {
  const service = await startService(kind, { env: keep ? {} : { HISTORY_KEEP: '0' } });
  try {
    const setup = service.client(2);
    const modelId = await createProductModel(setup);
    const bodies = importBodies(modelId, skuPrefix(), options.rows);
    const imported = await importRows(setup, { modelId, prefix: '', rows: options.rows, bodies, concurrency: 2 });
    const ids = await recordIds(service, modelId, Math.min(options.rows, options.patches));
    const client = service.client(options.connections);
    const before = processCpuMicros(service.server.pid);
    const patches = await fixedCount(options.connections, options.patches, async (n) => {
      const data = { price: n, title: `patched ${n}` };
      return (await client.request(PATCH, { input: { id: ids[n % ids.length], data } })).ms;
    });
    const cpu = processCpuMicros(service.server.pid) - before;
    return {
      importRowsPerSecond: imported.rows / (imported.ms / 1000),
      patchesPerSecond: patches.requestsPerSecond,
      patchP50Ms: patches.p50,
      cpuMicrosPerPatch: cpu / options.patches,
    };
  } finally {
    await service.dispose();
  }
}

await runBenchmark('history', async ({ args, kind, reps }) => {
  const options = readOptions(args);
  await once(kind, true, { ...options, rows: 2000, patches: 500 }); // warm-up: the machine's caches, not counted
  const withHistory: Run[] = [];
  const without: Run[] = [];
  for (let rep = 0; rep < reps; rep++) {
    for (const keep of rep % 2 === 0 ? [true, false] : [false, true]) {
      const run = await once(kind, keep, options);
      (keep ? withHistory : without).push(run);
      console.log(
        `rep ${rep + 1} ${keep ? 'history kept' : 'no history  '}: import ${fmtInt(run.importRowsPerSecond)} rows/s; ` +
          `patch ${fmtInt(run.patchesPerSecond)}/s, p50 ${fmtMs(run.patchP50Ms)}, server CPU ${fmtInt(run.cpuMicrosPerPatch)} µs a patch`,
      );
    }
  }
  const figure = (runs: Run[], key: keyof Run) => spread(runs.map((run) => run[key]));
  const importRatio = figure(withHistory, 'importRowsPerSecond').median / figure(without, 'importRowsPerSecond').median;
  const patchCostRatio = figure(withHistory, 'cpuMicrosPerPatch').median / figure(without, 'cpuMicrosPerPatch').median;
  const status = (met: boolean) => (met ? 'met' : 'MISSED');
  printTable(
    `History on ${kind}`,
    ['figure', 'history kept (100)', 'none (0)', 'ratio', 'goal'],
    [
      [
        `import rows/s (${fmtInt(options.rows)} rows; median (min–max) of ${reps})`,
        fmtSpread(figure(withHistory, 'importRowsPerSecond'), fmtInt),
        fmtSpread(figure(without, 'importRowsPerSecond'), fmtInt),
        fmtRatio(importRatio),
        `≥ ${GOAL_IMPORT_RATIO}× ${status(importRatio >= GOAL_IMPORT_RATIO)}`,
      ],
      [
        `server CPU a patch (${fmtInt(options.patches)} patches × ${options.connections})`,
        fmtSpread(figure(withHistory, 'cpuMicrosPerPatch'), (value) => `${fmtInt(value)} µs`),
        fmtSpread(figure(without, 'cpuMicrosPerPatch'), (value) => `${fmtInt(value)} µs`),
        fmtRatio(patchCostRatio),
        `≤ ${GOAL_PATCH_COST_RATIO}× ${status(patchCostRatio <= GOAL_PATCH_COST_RATIO)}`,
      ],
      [
        'patches/s',
        fmtSpread(figure(withHistory, 'patchesPerSecond'), fmtInt),
        fmtSpread(figure(without, 'patchesPerSecond'), fmtInt),
        fmtRatio(figure(withHistory, 'patchesPerSecond').median / figure(without, 'patchesPerSecond').median),
        '',
      ],
      [
        'patch latency p50',
        fmtSpread(figure(withHistory, 'patchP50Ms'), fmtMs),
        fmtSpread(figure(without, 'patchP50Ms'), fmtMs),
        '',
        '',
      ],
    ],
  );
  return { options, withHistory, without, importRatio, patchCostRatio };
});
