/**
 * Import: N product rows through record.import over HTTP in 1000-row calls, with 1 and 2 clients in flight, and
 * in the same run the raw driver inserting the same rows (bench/lib/raw.ts):
 *
 * - into the service's own tables and indexes (its migrations), with the store's connection settings;
 * - into the smallest schema the job needs (id, data, SKU unique per model, the list index), with the store's
 *   connection settings: WAL, synchronous=NORMAL, WAL checkpoints on a worker thread;
 * - (SQLite) into the smallest schema with WAL and synchronous=NORMAL only: SQLite's own checkpoints, on the
 *   inserting connection, as a plain better-sqlite3 program makes them.
 *
 * Every measurement starts from a fresh database; repetitions interleave the baselines and the service runs.
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

interface Baseline {
  /** The key of its figures in the results JSON. */
  key: 'raw' | 'smallestRaw' | 'smallestRawOwnCheckpoints';
  label: string;
  /** The ratio's column header. */
  ratio: string;
  open: (database: BenchDatabase) => Promise<RawTarget>;
  sqliteOnly?: boolean;
}

const BASELINES: Baseline[] = [
  { key: 'raw', label: 'raw driver, service schema', ratio: 'service/raw', open: openRawTarget },
  {
    key: 'smallestRaw',
    label: 'raw driver, smallest schema',
    ratio: 'service/smallest',
    open: (database) => openSmallestTarget(database, 'worker'),
  },
  {
    key: 'smallestRawOwnCheckpoints',
    label: "raw driver, smallest schema, SQLite's checkpoints",
    ratio: "service/smallest, SQLite's checkpoints",
    open: (database) => openSmallestTarget(database, 'connection'),
    sqliteOnly: true,
  },
];

type Run = { ms: number; rowsPerSecond: number };

await runBenchmark('import', async ({ args, kind, reps }) => {
  const rows = args.int('rows', 200_000);
  const batchSize = args.int('batch', 1000);
  const clientCounts = args.ints('clients', [1, 2]);
  const prefix = skuPrefix();
  const catalogue = productRows(prefix, 0, rows);
  const rowBytes = Math.round(catalogue.reduce((sum, row) => sum + JSON.stringify(row).length, 0) / rows);
  console.log(`${fmtInt(rows)} rows of ~${rowBytes} bytes, ${batchSize} per call/transaction`);

  const baselines = BASELINES.filter((baseline) => !baseline.sqliteOnly || kind === 'sqlite');
  const baselineRuns = new Map<Baseline, Run[]>(baselines.map((baseline) => [baseline, []]));
  const serviceRates = new Map<number, number[]>(clientCounts.map((clients) => [clients, []]));
  const serviceRuns: { clients: number; rep: number; ms: number; rowsPerSecond: number }[] = [];

  // The raw driver on a fresh database, a warm-up model's worth of rows first; the rate of the catalogue's rows.
  const rawRun = async (open: (database: BenchDatabase) => Promise<RawTarget>): Promise<Run> => {
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
    for (const baseline of baselines) {
      const run = await rawRun(baseline.open);
      baselineRuns.get(baseline)!.push(run);
      console.log(`rep ${rep} ${baseline.label}: ${fmtInt(run.rowsPerSecond)} rows/s (${(run.ms / 1000).toFixed(2)} s)`);
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

  const ratesOf = (baseline: Baseline) => baselineRuns.get(baseline)!.map((run) => run.rowsPerSecond);
  const ratioKey = { raw: 'ToRaw', smallestRaw: 'ToSmallest', smallestRawOwnCheckpoints: 'ToSmallestOwnCheckpoints' } as const;
  const summary = clientCounts.map((clients) => {
    const rates = serviceRates.get(clients)!;
    const entry: Record<string, unknown> = {
      clients,
      rowsPerSecond: spread(rates),
      msPerCall: spread(rates.map((rate) => (batchSize / rate) * 1000)),
    };
    for (const baseline of baselines) {
      const baseRates = ratesOf(baseline);
      // ratioToRaw, perRepetitionRatio (the names bench/report.ts has read since issue 5), ratioToSmallest, …
      entry[`ratio${ratioKey[baseline.key]}`] = rates.length ? spread(rates).median / spread(baseRates).median : NaN;
      entry[baseline.key === 'raw' ? 'perRepetitionRatio' : `perRepetitionRatio${ratioKey[baseline.key]}`] = spread(
        rates.map((rate, index) => rate / baseRates[index]!),
      );
    }
    return entry;
  });
  const msPerBatch = (rates: number[]) => fmtSpread(spread(rates.map((rate) => (batchSize / rate) * 1000)), fmtMs);
  const empty = baselines.flatMap(() => ['', '']);
  printTable(
    `Import on ${kind}: ${fmtInt(rows)} rows, ${batchSize}-row calls — rows/s, median (min–max) of ${reps}`,
    ['path', 'rows/s', `ms per ${batchSize} rows`, ...baselines.flatMap((baseline) => [baseline.ratio, 'per rep'])],
    [
      ...baselines.map((baseline) => [
        baseline.label,
        fmtSpread(spread(ratesOf(baseline)), fmtInt),
        msPerBatch(ratesOf(baseline)),
        ...empty,
      ]),
      ...clientCounts.map((clients) => {
        const rates = serviceRates.get(clients)!;
        return [
          `service, ${clients} client${clients > 1 ? 's' : ''}`,
          fmtSpread(spread(rates), fmtInt),
          msPerBatch(rates),
          ...baselines.flatMap((baseline) => {
            const baseRates = ratesOf(baseline);
            return [
              fmtRatio(spread(rates).median / spread(baseRates).median),
              fmtSpread(spread(rates.map((rate, index) => rate / baseRates[index]!)), fmtRatio),
            ];
          }),
        ];
      }),
    ],
  );
  return {
    rows,
    batchSize,
    rowBytes,
    ...Object.fromEntries(
      baselines.map((baseline) => [
        baseline.key,
        { rowsPerSecond: spread(ratesOf(baseline)), runs: baselineRuns.get(baseline)! },
      ]),
    ),
    service: summary,
    serviceRuns,
  };
});
