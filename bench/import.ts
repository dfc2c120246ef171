/**
 * Import: N product rows through record.import over HTTP in 1000-row calls, with 1 and 2 clients in flight, and
 * in the same run two baselines (bench/lib/raw.ts): the raw driver inserting the same rows into the service's own
 * tables and indexes, and the raw driver inserting them into the smallest schema the job needs (id, data, SKU
 * unique per model, the list index). Every measurement starts from a fresh database; repetitions interleave
 * the baselines and the service runs.
 *
 *   node --import tsx bench/import.ts [--rows 200000] [--batch 1000] [--clients 1,2] [--reps 3] [--db sqlite|postgres]
 */
import { createDatabase, type BenchDatabase } from './lib/database.js';
import { createProductModel, importBodies, importRows, productRows, skuPrefix } from './lib/catalog.js';
import { openRawTarget, openSmallestTarget, rawRows, type RawTarget } from './lib/raw.js';
import { runBenchmark, startService } from './lib/run.js';
import { spread } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, fmtSpread, printTable } from './lib/table.js';

const WARMUP_BATCHES = 5;

await runBenchmark('import', async ({ args, kind, reps }) => {
  const rows = args.int('rows', 200_000);
  const batchSize = args.int('batch', 1000);
  const clientCounts = args.ints('clients', [1, 2]);
  const prefix = skuPrefix();
  const catalogue = productRows(prefix, 0, rows);
  const rowBytes = Math.round(catalogue.reduce((sum, row) => sum + JSON.stringify(row).length, 0) / rows);
  console.log(`${fmtInt(rows)} rows of ~${rowBytes} bytes, ${batchSize} per call/transaction`);

  const rawRates: number[] = [];
  const smallestRates: number[] = [];
  const serviceRates = new Map<number, number[]>(clientCounts.map((clients) => [clients, []]));
  const rawRuns: { ms: number; rowsPerSecond: number }[] = [];
  const smallestRuns: { ms: number; rowsPerSecond: number }[] = [];
  const serviceRuns: { clients: number; rep: number; ms: number; rowsPerSecond: number }[] = [];

  // The raw driver on a fresh database, a warm-up model's worth of rows first; the rate of the catalogue's rows.
  const rawRun = async (
    open: (database: BenchDatabase) => Promise<RawTarget>,
  ): Promise<{ ms: number; rowsPerSecond: number }> => {
    const database = await createDatabase(kind);
    const target = await open(database);
    try {
      await target.insert('warmup', rawRows(productRows(`${prefix}-warm`, 0, WARMUP_BATCHES * batchSize)), batchSize);
      const { ms } = await target.insert('product', rawRows(catalogue), batchSize);
      return { ms, rowsPerSecond: (rows / ms) * 1000 };
    } finally {
      await target.close();
      await database.dispose();
    }
  };

  for (let rep = 1; rep <= reps; rep++) {
    // The service's own schema (its migrations), then the smallest schema the job needs.
    const raw = await rawRun(openRawTarget);
    rawRates.push(raw.rowsPerSecond);
    rawRuns.push(raw);
    console.log(`rep ${rep} raw driver: ${fmtInt(raw.rowsPerSecond)} rows/s (${(raw.ms / 1000).toFixed(2)} s)`);
    const smallest = await rawRun(openSmallestTarget);
    smallestRates.push(smallest.rowsPerSecond);
    smallestRuns.push(smallest);
    console.log(
      `rep ${rep} raw driver, smallest schema: ${fmtInt(smallest.rowsPerSecond)} rows/s (${(smallest.ms / 1000).toFixed(2)} s)`,
    );

    for (const clients of clientCounts) {
      const service = await startService(kind);
      try {
        const client = service.client(clients);
        // Warm-up (JIT, statement caches) on another model, as the raw run warms up.
        const warmModel = await createProductModel(client, 'warmup');
        await importRows(client, {
          modelId: warmModel,
          prefix: `${prefix}-warm`,
          rows: WARMUP_BATCHES * batchSize,
          batchSize,
          concurrency: clients,
        });
        const modelId = await createProductModel(client);
        const bodies = importBodies(modelId, prefix, rows, batchSize);
        const { ms } = await importRows(client, { modelId, prefix, rows, batchSize, concurrency: clients, bodies });
        const rate = (rows / ms) * 1000;
        serviceRates.get(clients)!.push(rate);
        serviceRuns.push({ clients, rep, ms, rowsPerSecond: rate });
        console.log(`rep ${rep} service, ${clients} client(s): ${fmtInt(rate)} rows/s (${(ms / 1000).toFixed(2)} s)`);
      } finally {
        await service.dispose();
      }
    }
  }

  const raw = spread(rawRates);
  const smallest = spread(smallestRates);
  const summary = clientCounts.map((clients) => {
    const rates = serviceRates.get(clients)!;
    const perRepRatios = rates.map((rate, index) => rate / rawRates[index]!);
    const perRepSmallest = rates.map((rate, index) => rate / smallestRates[index]!);
    return {
      clients,
      rowsPerSecond: spread(rates),
      msPerCall: spread(rates.map((rate) => (batchSize / rate) * 1000)),
      ratioToRaw: rates.length ? spread(rates).median / raw.median : NaN,
      perRepetitionRatio: spread(perRepRatios),
      ratioToSmallest: rates.length ? spread(rates).median / smallest.median : NaN,
      perRepetitionRatioToSmallest: spread(perRepSmallest),
    };
  });
  const msPerBatch = (rates: number[]) => fmtSpread(spread(rates.map((rate) => (batchSize / rate) * 1000)), fmtMs);
  printTable(
    `Import on ${kind}: ${fmtInt(rows)} rows, ${batchSize}-row calls — rows/s, median (min–max) of ${reps}`,
    [
      'path',
      'rows/s',
      `ms per ${batchSize} rows`,
      'service/raw',
      'service/raw per rep',
      'service/smallest',
      'service/smallest per rep',
    ],
    [
      ['raw driver, service schema', fmtSpread(raw, fmtInt), msPerBatch(rawRates), '', '', '', ''],
      ['raw driver, smallest schema', fmtSpread(smallest, fmtInt), msPerBatch(smallestRates), '', '', '', ''],
      ...summary.map((entry) => [
        `service, ${entry.clients} client${entry.clients > 1 ? 's' : ''}`,
        fmtSpread(entry.rowsPerSecond, fmtInt),
        msPerBatch(serviceRates.get(entry.clients)!),
        fmtRatio(entry.ratioToRaw),
        fmtSpread(entry.perRepetitionRatio, fmtRatio),
        fmtRatio(entry.ratioToSmallest),
        fmtSpread(entry.perRepetitionRatioToSmallest, fmtRatio),
      ]),
    ],
  );
  return {
    rows,
    batchSize,
    rowBytes,
    raw: { rowsPerSecond: raw, runs: rawRuns },
    smallestRaw: { rowsPerSecond: smallest, runs: smallestRuns },
    service: summary,
    serviceRuns,
  };
});
