/**
 * Populate: record.list limit 100 of a product model whose hasOne `category` points at one of 100 category
 * records (so the 100 records of a page name 100 different targets), without populate and with
 * `populate: ["category"]`, one request at a time; p50/p99 client-side and server-side (the durationMs of the
 * server's request log line). The target: the populated page within 2 × the same page without it. A third
 * cell writes a category before each request, so that no target kept from an earlier read can be given (SQLite
 * keeps the records populate reads by their model's content version).
 *
 *   node --import tsx bench/populate.ts [--rows 100000 | --large] [--requests 200] [--max-seconds 10] [--reps 3]
 */
import { importRows, productModelInput, productRow, skuPrefix, IMPORT_QUERY } from './lib/catalog.js';
import { measureRequests } from './lib/measure.js';
import { runBenchmark, startService } from './lib/run.js';
import { spread, type LatencySummary } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, fmtSpread, printTable } from './lib/table.js';

const CATEGORIES = 100;
const ITEMS = 'total hasMore items { id data createdAt updatedAt }';

/**
 * The third cell writes a category before each request: the categories' content version moves, so the populated
 * page reads its 100 targets from the database (no record kept from an earlier read can be given).
 */
const CELLS = [
  { name: 'without populate', populate: null, writeFirst: false },
  { name: 'populate category (hasOne)', populate: ['category'], writeFirst: false },
  { name: 'populate, a category written before each', populate: ['category'], writeFirst: true },
] as const;
const PATCH = 'mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }';

function listBody(modelId: string, populate: readonly string[] | null): string {
  return JSON.stringify({
    query: `query ($model: ID!, $populate: [String!]) { record { list(modelId: $model, limit: 100, populate: $populate) { ${ITEMS} } } }`,
    variables: { model: modelId, populate },
  });
}

function importBodies(modelId: string, rows: number, categoryIds: string[]): string[] {
  const prefix = skuPrefix();
  const bodies: string[] = [];
  for (let start = 0; start < rows; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, rows - start) }, (_, offset) => {
      const index = start + offset;
      return { ...productRow(prefix, index), category: categoryIds[index % CATEGORIES] };
    });
    bodies.push(JSON.stringify({ query: IMPORT_QUERY, variables: { input: { modelId, rows: batch } } }));
  }
  return bodies;
}

await runBenchmark('populate', async ({ args, kind, reps }) => {
  const rows = args.int('rows', args.flag('large') ? 1_000_000 : 100_000);
  const requests = args.int('requests', 200);
  const maxSeconds = args.int('max-seconds', 10);
  const runs: { cell: string; rep: number; client: LatencySummary; server: LatencySummary }[] = [];
  const service = await startService(kind);
  try {
    const client = service.client(2);
    const createModel = async (input: unknown) =>
      (
        await client.request<{ model: { create: { id: string } } }>(
          'mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }',
          { input },
        )
      ).data.model.create.id;
    const categoryModel = await createModel({
      name: 'Category',
      slug: 'category',
      displayField: 'name',
      fields: [
        { key: 'name', label: 'Name', type: 'text', required: true },
        { key: 'slug', label: 'Slug', type: 'text' },
        { key: 'description', label: 'Description', type: 'text' },
      ],
    });
    const categoryRows = Array.from({ length: CATEGORIES }, (_, index) => ({
      name: `Category ${index}`,
      slug: `category-${index}`,
      description: 'Everything for long days outdoors, chosen and tested by people who go there.',
    }));
    await client.request(IMPORT_QUERY, { input: { modelId: categoryModel, rows: categoryRows } });
    const categories = await client.request<{ record: { list: { items: { id: string }[] } } }>(
      'query ($model: ID!) { record { list(modelId: $model, limit: 100) { items { id } } } }',
      { model: categoryModel },
    );
    const categoryIds = categories.data.record.list.items.map((item) => item.id);
    const base = productModelInput('product');
    const modelId = await createModel({
      ...base,
      fields: [...base.fields, { key: 'category', label: 'Category', type: 'relation', relationTo: 'model:category' }],
    });
    const seeded = await importRows(client, {
      modelId,
      prefix: '',
      rows,
      concurrency: 2,
      bodies: importBodies(modelId, rows, categoryIds),
    });
    console.log(`${fmtInt(rows)} products seeded in ${(seeded.ms / 1000).toFixed(1)} s (${CATEGORIES} categories)`);
    // The cells that write go last: a write leaves work behind (SQLite's WAL, the sole server's kept reads) that
    // would slow the reads of the next repetition's other cells.
    const rounds = [CELLS.filter((cell) => !cell.writeFirst), CELLS.filter((cell) => cell.writeFirst)];
    for (const [cells, rep] of rounds.flatMap((cells) =>
      Array.from({ length: reps }, (_, index) => [cells, index + 1] as const),
    )) {
      for (const cell of cells) {
        let writes = 0;
        const writeCategory = () =>
          client.request(PATCH, {
            input: { id: categoryIds[writes % CATEGORIES], data: { description: `Edition ${++writes}` } },
          });
        const result = await measureRequests(
          service,
          (sent) => client.send(sent),
          listBody(modelId, cell.populate),
          requests,
          maxSeconds,
          cell.writeFirst ? writeCategory : undefined,
        );
        runs.push({ cell: cell.name, rep, ...result });
        console.log(
          `rep ${rep} ${cell.name}: client p50 ${fmtMs(result.client.p50)} p99 ${fmtMs(result.client.p99)} ms, ` +
            `server p50 ${fmtMs(result.server.p50)} p99 ${fmtMs(result.server.p99)} ms (${result.client.count} requests)`,
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
      clientP50Ms: spread(mine.map((run) => run.client.p50)),
      serverP50Ms: spread(mine.map((run) => run.server.p50)),
      serverP99Ms: spread(mine.map((run) => run.server.p99)),
    };
  });
  printTable(
    `record.list limit 100 on ${kind}, ${fmtInt(rows)} products — ms, median (min–max) of ${reps}`,
    ['cell', 'client p50', 'server p50', 'server p99'],
    summary.map((entry) => [
      entry.cell,
      fmtSpread(entry.clientP50Ms, fmtMs),
      fmtSpread(entry.serverP50Ms, fmtMs),
      fmtSpread(entry.serverP99Ms, fmtMs),
    ]),
  );
  const [without, withPopulate, afterWrite] = summary.map((entry) => entry.serverP50Ms.median) as [number, number, number];
  const perRep = (cell: (typeof CELLS)[number]) =>
    Array.from({ length: reps }, (_, index) => {
      const at = (name: string) => runs.find((run) => run.cell === name && run.rep === index + 1)!.server.p50;
      return at(cell.name) / at(CELLS[0].name);
    });
  const checks = {
    withoutServerP50Ms: without,
    populateServerP50Ms: withPopulate,
    ratio: withPopulate / without,
    populateAfterWriteServerP50Ms: afterWrite,
    ratioAfterWrite: afterWrite / without,
  };
  console.log(
    `populate category: server p50 ${fmtMs(withPopulate)} ms vs ${fmtMs(without)} ms without: ${fmtRatio(checks.ratio)} × ` +
      `(per repetition ${perRep(CELLS[1]).map(fmtRatio).join(', ')}; target ≤ 2 ×); ` +
      `a category written before each: ${fmtMs(afterWrite)} ms, ${fmtRatio(checks.ratioAfterWrite)} × ` +
      `(per repetition ${perRep(CELLS[2]).map(fmtRatio).join(', ')})`,
  );
  return {
    rows,
    categories: CATEGORIES,
    requestsPerCell: requests,
    maxSecondsPerCell: maxSeconds,
    summary,
    checks,
    perRep: { populate: perRep(CELLS[1]), afterWrite: perRep(CELLS[2]) },
    runs,
  };
});
