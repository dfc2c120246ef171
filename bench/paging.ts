/**
 * Full paging: walking every record of a model with offset paging, as the spec's clients do (limit 100, offset
 * raised by 100 until hasMore is false), one request at a time, at each catalogue size (default 10,000 and
 * 100,000; --large: 100,000 and 1,000,000). Total time per walk and how it grows with the size.
 *
 *   node --import tsx bench/paging.ts [--sizes 10000,100000 | --large] [--reps 3]
 */
import { performance } from 'node:perf_hooks';
import { seedCatalog } from './lib/catalog.js';
import { runBenchmark, startService } from './lib/run.js';
import { spread } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, fmtSpread, printTable } from './lib/table.js';

const PAGE =
  'query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { hasMore items { id data createdAt updatedAt } } } }';

await runBenchmark('paging', async ({ args, kind, reps }) => {
  const sizes = args.ints('sizes', args.flag('large') ? [100_000, 1_000_000] : [10_000, 100_000]).sort((a, b) => a - b);
  const runs: { size: number; rep: number; seconds: number; pages: number; msPerPage: number; lastPageMs: number }[] = [];

  for (const size of sizes) {
    const service = await startService(kind);
    try {
      const client = service.client(1);
      const { modelId, ms } = await seedCatalog(client, size);
      console.log(`${fmtInt(size)} records seeded in ${(ms / 1000).toFixed(1)} s`);
      // Warm-up (JIT, statement caches): the first 30 pages, not timed.
      for (let offset = 0; offset < Math.min(size, 3000); offset += 100) await client.request(PAGE, { model: modelId, offset });
      for (let rep = 1; rep <= reps; rep++) {
        let pages = 0;
        let seen = 0;
        let lastPageMs = 0;
        const started = performance.now();
        for (let offset = 0; ; offset += 100) {
          const page = await client.request<{ record: { list: { hasMore: boolean; items: unknown[] } } }>(PAGE, {
            model: modelId,
            offset,
          });
          pages++;
          seen += page.data.record.list.items.length;
          lastPageMs = page.ms;
          if (!page.data.record.list.hasMore) break;
        }
        const seconds = (performance.now() - started) / 1000;
        if (seen !== size) throw new Error(`walked ${seen} records of ${size}`);
        runs.push({ size, rep, seconds, pages, msPerPage: (seconds * 1000) / pages, lastPageMs });
        console.log(
          `rep ${rep} ${fmtInt(size)} records: ${seconds.toFixed(2)} s, ${pages} pages, ${fmtMs((seconds * 1000) / pages)} ms a page, last page ${fmtMs(lastPageMs)} ms`,
        );
      }
    } finally {
      await service.dispose();
    }
  }

  const summary = sizes.map((size) => {
    const mine = runs.filter((run) => run.size === size);
    return {
      size,
      seconds: spread(mine.map((run) => run.seconds)),
      msPerPage: spread(mine.map((run) => run.msPerPage)),
      lastPageMs: spread(mine.map((run) => run.lastPageMs)),
    };
  });
  const base = summary[0]!;
  const growth = summary.map((entry) => ({
    size: entry.size,
    sizeRatio: entry.size / base.size,
    timeRatio: entry.seconds.median / base.seconds.median,
  }));
  printTable(
    `Walking every record by offset paging on ${kind} (limit 100) — median (min–max) of ${reps}`,
    ['records', 'total s', 'ms a page', 'last page ms', 'time × smallest', 'size × smallest'],
    summary.map((entry, index) => [
      fmtInt(entry.size),
      fmtSpread(entry.seconds, (value) => value.toFixed(2)),
      fmtSpread(entry.msPerPage, fmtMs),
      fmtSpread(entry.lastPageMs, fmtMs),
      fmtRatio(growth[index]!.timeRatio),
      fmtRatio(growth[index]!.sizeRatio),
    ]),
  );
  return { sizes, summary, growth, runs };
});
