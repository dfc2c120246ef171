/**
 * Import with indexed fields: record.import of N product rows in 1000-row calls into a model without indexed
 * fields and into the same model with three indexed fields (`price`, `stock`, `colour`), each on a fresh database
 * after a warm-up import on another model; repetitions interleave the two. Prints rows/s and the ratio.
 *
 *   node --import tsx bench/import-indexed.ts [--rows 100000] [--clients 1] [--reps 3] [--db sqlite|postgres]
 */
import { importBodies, importRows, productModelInput, skuPrefix } from './lib/catalog.js';
import type { GqlClient } from './lib/client.js';
import { runBenchmark, startService } from './lib/run.js';
import { spread } from './lib/stats.js';
import { fmtInt, fmtRatio, fmtSpread, printTable } from './lib/table.js';

const WARMUP_ROWS = 5000;
const INDEXED = ['price', 'stock', 'colour'];
const VARIANTS = [
  { name: 'no indexed field', indexed: [] as string[] },
  { name: `3 indexed fields (${INDEXED.join(', ')})`, indexed: INDEXED },
];

async function createModel(client: GqlClient, slug: string, indexed: string[]): Promise<string> {
  const base = productModelInput(slug);
  const input = {
    ...base,
    fields: base.fields.map((field) => (indexed.includes(field.key) ? { ...field, indexed: true } : field)),
  };
  const result = await client.request<{ model: { create: { id: string } } }>(
    'mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }',
    { input },
  );
  return result.data.model.create.id;
}

await runBenchmark('import-indexed', async ({ args, kind, reps }) => {
  const rows = args.int('rows', 100_000);
  const clients = args.int('clients', 1);
  const rates = new Map<string, number[]>(VARIANTS.map((variant) => [variant.name, []]));
  const runs: { variant: string; rep: number; ms: number; rowsPerSecond: number }[] = [];
  for (let rep = 1; rep <= reps; rep++) {
    for (const variant of rep % 2 === 1 ? VARIANTS : [...VARIANTS].reverse()) {
      const service = await startService(kind);
      try {
        const client = service.client(clients);
        const prefix = skuPrefix();
        const warmModel = await createModel(client, 'warmup', variant.indexed);
        await importRows(client, { modelId: warmModel, prefix: `${prefix}-warm`, rows: WARMUP_ROWS, concurrency: clients });
        const modelId = await createModel(client, 'product', variant.indexed);
        const bodies = importBodies(modelId, prefix, rows);
        const { ms } = await importRows(client, { modelId, prefix, rows, concurrency: clients, bodies });
        const rate = (rows / ms) * 1000;
        rates.get(variant.name)!.push(rate);
        runs.push({ variant: variant.name, rep, ms, rowsPerSecond: rate });
        console.log(`rep ${rep} ${variant.name}: ${fmtInt(rate)} rows/s (${(ms / 1000).toFixed(2)} s)`);
      } finally {
        await service.dispose();
      }
    }
  }
  const summary = VARIANTS.map((variant) => ({ variant: variant.name, rowsPerSecond: spread(rates.get(variant.name)!) }));
  const ratio = summary[1]!.rowsPerSecond.median / summary[0]!.rowsPerSecond.median;
  printTable(
    `Import on ${kind}: ${fmtInt(rows)} rows, 1000-row calls, ${clients} client(s) — rows/s, median (min–max) of ${reps}`,
    ['model', 'rows/s', 'relative'],
    summary.map((entry) => [
      entry.variant,
      fmtSpread(entry.rowsPerSecond, fmtInt),
      fmtRatio(entry.rowsPerSecond.median / summary[0]!.rowsPerSecond.median),
    ]),
  );
  // Within a repetition both variants ran back to back, so their ratio moves less with the machine's load.
  const perRep = Array.from({ length: reps }, (_, index) => {
    const rate = (variant: string) => runs.find((run) => run.variant === variant && run.rep === index + 1)!.rowsPerSecond;
    return rate(VARIANTS[1]!.name) / rate(VARIANTS[0]!.name);
  });
  console.log(
    `three indexed fields: ${fmtRatio(ratio)} × the import speed without them (per repetition ${perRep.map(fmtRatio).join(', ')})`,
  );
  return { rows, clients, indexedFields: INDEXED, summary, checks: { indexedOverPlain: ratio, perRepetition: perRep }, runs };
});
