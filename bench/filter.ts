/**
 * Filtered lists: record.list with limit 20 on a catalogue of one model (default 100,000 records; --large:
 * 1,000,000), one request at a time, p50 and p99 client-side and server-side (the durationMs of the server's
 * request log line). Cells: the unfiltered first page; equality on an indexed text field matching about 1 % of
 * the records (with total and hasMore, as the hosted SDK asks, and items only, to show what counting them
 * costs); the same sorted by an indexed number field; equality on an unindexed number field (about 0.2 %: a scan
 * of the model).
 *
 *   node --import tsx bench/filter.ts [--rows 100000 | --large] [--requests 200] [--max-seconds 10] [--reps 3]
 */
import { importRows, productModelInput, productRow, skuPrefix, IMPORT_QUERY } from './lib/catalog.js';
import { measureRequests } from './lib/measure.js';
import { runBenchmark, startService } from './lib/run.js';
import { spread, type LatencySummary } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, fmtSpread, printTable } from './lib/table.js';

const CATEGORIES = 100;
const ITEMS = 'items { id data createdAt updatedAt }';

/** The catalogue model with `category` (one of 100, indexed) and an indexed `price`. */
function filterModelInput() {
  const base = productModelInput('product');
  return {
    ...base,
    fields: [
      ...base.fields.map((field) => (field.key === 'price' ? { ...field, indexed: true } : field)),
      { key: 'category', label: 'Category', type: 'text', indexed: true },
    ],
  };
}

function importBodies(modelId: string, rows: number): string[] {
  const prefix = skuPrefix();
  const bodies: string[] = [];
  for (let start = 0; start < rows; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, rows - start) }, (_, offset) => {
      const index = start + offset;
      return { ...productRow(prefix, index), category: `category-${index % CATEGORIES}` };
    });
    bodies.push(JSON.stringify({ query: IMPORT_QUERY, variables: { input: { modelId, rows: batch } } }));
  }
  return bodies;
}

interface Cell {
  name: string;
  selection: string;
  filter?: unknown;
  sort?: string;
}

const CELLS: Cell[] = [
  { name: 'unfiltered', selection: `total hasMore ${ITEMS}` },
  { name: 'indexed equality (1 %)', selection: `total hasMore ${ITEMS}`, filter: { category: 'category-42' } },
  { name: 'indexed equality (1 %), items only', selection: ITEMS, filter: { category: 'category-42' } },
  {
    name: 'indexed equality (1 %), sort -price',
    selection: `total hasMore ${ITEMS}`,
    filter: { category: 'category-42' },
    sort: '-price',
  },
  { name: 'sort -price (indexed), no filter', selection: `total hasMore ${ITEMS}`, sort: '-price' },
  { name: 'unindexed equality (0.2 %)', selection: `total hasMore ${ITEMS}`, filter: { stock: 42 } },
];

function listBody(modelId: string, cell: Cell): string {
  return JSON.stringify({
    query: `query ($model: ID!, $filter: JSON, $sort: String) { record { list(modelId: $model, limit: 20, filter: $filter, sort: $sort) { ${cell.selection} } } }`,
    variables: { model: modelId, filter: cell.filter ?? null, sort: cell.sort ?? null },
  });
}

await runBenchmark('filter', async ({ args, kind, reps }) => {
  const rows = args.int('rows', args.flag('large') ? 1_000_000 : 100_000);
  const requests = args.int('requests', 200);
  const maxSeconds = args.int('max-seconds', 10);
  const runs: { cell: string; rep: number; client: LatencySummary; server: LatencySummary; total: number }[] = [];
  const service = await startService(kind);
  try {
    const client = service.client(2);
    const created = await client.request<{ model: { create: { id: string } } }>(
      'mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }',
      { input: filterModelInput() },
    );
    const modelId = created.data.model.create.id;
    const seeded = await importRows(client, { modelId, prefix: '', rows, concurrency: 2, bodies: importBodies(modelId, rows) });
    console.log(`${fmtInt(rows)} records seeded in ${(seeded.ms / 1000).toFixed(1)} s (category and price indexed)`);
    for (let rep = 1; rep <= reps; rep++) {
      for (const cell of CELLS) {
        const body = listBody(modelId, cell);
        const answer = await client.send<{ record: { list: { total?: number } } }>(body);
        const result = await measureRequests(service, (sent) => client.send(sent), body, requests, maxSeconds);
        const total = answer.data.record.list.total ?? NaN;
        runs.push({ cell: cell.name, rep, total, ...result });
        console.log(
          `rep ${rep} ${cell.name}: client p50 ${fmtMs(result.client.p50)} p99 ${fmtMs(result.client.p99)} ms, ` +
            `server p50 ${fmtMs(result.server.p50)} p99 ${fmtMs(result.server.p99)} ms (${result.client.count} requests, total ${fmtInt(total)})`,
        );
      }
    }
  } finally {
    await service.dispose();
  }

  const summary = CELLS.map((cell) => {
    const mine = runs.filter((run) => run.cell === cell.name);
    return {
      cell: cell.name,
      total: mine[0]!.total,
      clientP50Ms: spread(mine.map((run) => run.client.p50)),
      serverP50Ms: spread(mine.map((run) => run.server.p50)),
      serverP99Ms: spread(mine.map((run) => run.server.p99)),
    };
  });
  printTable(
    `record.list limit 20 on ${kind}, ${fmtInt(rows)} records, one request at a time — ms, median (min–max) of ${reps}`,
    ['cell', 'matching', 'client p50', 'server p50', 'server p99'],
    summary.map((entry) => [
      entry.cell,
      fmtInt(entry.total),
      fmtSpread(entry.clientP50Ms, fmtMs),
      fmtSpread(entry.serverP50Ms, fmtMs),
      fmtSpread(entry.serverP99Ms, fmtMs),
    ]),
  );
  const at = (name: string) => summary.find((entry) => entry.cell === name)!.serverP50Ms.median;
  const checks = {
    indexedEqualityServerP50Ms: at('indexed equality (1 %)'),
    unfilteredServerP50Ms: at('unfiltered'),
    indexedOverUnfiltered: at('indexed equality (1 %)') / at('unfiltered'),
    countCostServerP50Ms: at('indexed equality (1 %)') - at('indexed equality (1 %), items only'),
    unindexedEqualityServerP50Ms: at('unindexed equality (0.2 %)'),
  };
  console.log(
    `indexed equality (1 %) server p50 ${fmtMs(checks.indexedEqualityServerP50Ms)} ms, ${fmtRatio(checks.indexedOverUnfiltered)} × ` +
      `the unfiltered page (${fmtMs(checks.unfilteredServerP50Ms)} ms); counting its matches costs ${fmtMs(checks.countCostServerP50Ms)} ms; ` +
      `unindexed equality ${fmtMs(checks.unindexedEqualityServerP50Ms)} ms`,
  );
  return { rows, requestsPerCell: requests, maxSecondsPerCell: maxSeconds, summary, checks, runs };
});
