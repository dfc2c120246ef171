/**
 * Import: N product rows through record.import over HTTP in 1000-row calls, with 1 and 2 clients in flight, and
 * in the same run the raw driver inserting the same rows into the same tables and indexes (bench/lib/raw.ts).
 * Every measurement starts from a fresh database; repetitions interleave raw and service runs.
 *
 *   node --import tsx bench/import.ts [--rows 200000] [--batch 1000] [--clients 1,2] [--reps 3] [--db sqlite|postgres]
 */
import { createDatabase } from './lib/database.js';
import { createProductModel, importBodies, importRows, productRows, skuPrefix } from './lib/catalog.js';
import { openRawTarget, rawRows } from './lib/raw.js';
import { runBenchmark, startService } from './lib/run.js';
import { spread } from './lib/stats.js';
import { fmtInt, fmtRatio, fmtSpread, printTable } from './lib/table.js';

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
  const serviceRates = new Map<number, number[]>(clientCounts.map((clients) => [clients, []]));
  const rawRuns: { ms: number; rowsPerSecond: number }[] = [];
  const serviceRuns: { clients: number; rep: number; ms: number; rowsPerSecond: number }[] = [];

  for (let rep = 1; rep <= reps; rep++) {
    // The raw driver: a fresh database, the service's migrations, a warm-up model's worth of rows first.
    const database = await createDatabase(kind);
    const target = await openRawTarget(database);
    try {
      await target.insert('warmup', rawRows(productRows(`${prefix}-warm`, 0, WARMUP_BATCHES * batchSize)), batchSize);
      const { ms } = await target.insert('product', rawRows(catalogue), batchSize);
      const rate = (rows / ms) * 1000;
      rawRates.push(rate);
      rawRuns.push({ ms, rowsPerSecond: rate });
      console.log(`rep ${rep} raw driver: ${fmtInt(rate)} rows/s (${(ms / 1000).toFixed(2)} s)`);
    } finally {
      await target.close();
      await database.dispose();
    }

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
  const summary = clientCounts.map((clients) => {
    const rates = serviceRates.get(clients)!;
    const perRepRatios = rates.map((rate, index) => rate / rawRates[index]!);
    return {
      clients,
      rowsPerSecond: spread(rates),
      ratioToRaw: rates.length ? spread(rates).median / raw.median : NaN,
      perRepetitionRatio: spread(perRepRatios),
    };
  });
  printTable(
    `Import on ${kind}: ${fmtInt(rows)} rows, ${batchSize}-row calls — rows/s, median (min–max) of ${reps}`,
    ['path', 'rows/s', 'service/raw (median)', 'service/raw per rep'],
    [
      ['raw driver', fmtSpread(raw, fmtInt), '', ''],
      ...summary.map((entry) => [
        `service, ${entry.clients} client${entry.clients > 1 ? 's' : ''}`,
        fmtSpread(entry.rowsPerSecond, fmtInt),
        fmtRatio(entry.ratioToRaw),
        fmtSpread(entry.perRepetitionRatio, fmtRatio),
      ]),
    ],
  );
  return { rows, batchSize, rowBytes, raw: { rowsPerSecond: raw, runs: rawRuns }, service: summary, serviceRuns };
});
