/**
 * Memory: peak RSS of the server process during a large import (default 200,000 rows; --large: 1,000,000), through
 * record.import over HTTP in 1000-row calls with `--clients` in flight (default 2). Sampled from /proc/<pid>/status
 * every 50 ms (VmRSS) plus the kernel's own peak (VmHWM). Each repetition starts a fresh server and database.
 * The CLI part of the target (CLI RSS importing a 1 GB CSV) is bench/import-memory.ts's.
 *
 *   node --import tsx bench/memory.ts [--rows 200000 | --large] [--clients 2] [--reps 3]
 */
import { execFileSync } from 'node:child_process';
import { createProductModel, importRows, skuPrefix } from './lib/catalog.js';
import { memoryStatus, RssSampler } from './lib/rss.js';
import { runBenchmark, startService } from './lib/run.js';
import { REPO_ROOT } from './lib/server.js';
import { spread } from './lib/stats.js';
import { fmtInt, fmtSpread, printTable } from './lib/table.js';

function cliHasImport(): boolean {
  const help = execFileSync(process.execPath, ['bin/content-service.js', '--help'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return /^\s+import\b/m.test(help);
}

await runBenchmark('memory', async ({ args, kind, reps }) => {
  const rows = args.int('rows', args.flag('large') ? 1_000_000 : 200_000);
  const clients = args.int('clients', 2);
  const runs: { rep: number; startMiB: number; peakSampledMiB: number; hwmMiB: number; endMiB: number; rowsPerSecond: number }[] =
    [];

  for (let rep = 1; rep <= reps; rep++) {
    const service = await startService(kind);
    try {
      const client = service.client(clients);
      const modelId = await createProductModel(client);
      const startMiB = memoryStatus(service.server.pid).rssMiB;
      const sampler = new RssSampler(service.server.pid, 50);
      const { ms } = await importRows(client, { modelId, prefix: skuPrefix(), rows, concurrency: clients });
      const peak = sampler.stop();
      const endMiB = memoryStatus(service.server.pid).rssMiB;
      runs.push({
        rep,
        startMiB,
        peakSampledMiB: peak.peakSampledMiB,
        hwmMiB: peak.hwmMiB,
        endMiB,
        rowsPerSecond: (rows / ms) * 1000,
      });
      console.log(
        `rep ${rep}: RSS ${startMiB.toFixed(0)} MiB before, peak ${Math.max(peak.hwmMiB, peak.peakSampledMiB).toFixed(0)} MiB (VmHWM ${peak.hwmMiB.toFixed(0)}), ` +
          `${endMiB.toFixed(0)} MiB after; ${fmtInt((rows / ms) * 1000)} rows/s`,
      );
    } finally {
      await service.dispose();
    }
  }

  const mib = (value: number) => value.toFixed(0);
  const peakMiB = spread(runs.map((run) => Math.max(run.hwmMiB, run.peakSampledMiB)));
  printTable(
    `Server RSS importing ${fmtInt(rows)} rows on ${kind} (${clients} clients, 1000-row calls) — MiB, median (min–max) of ${reps}`,
    ['measure', 'MiB'],
    [
      ['RSS before the import', fmtSpread(spread(runs.map((run) => run.startMiB)), mib)],
      ['peak RSS during the import', fmtSpread(peakMiB, mib)],
      ['RSS after the import', fmtSpread(spread(runs.map((run) => run.endMiB)), mib)],
    ],
  );
  const cli = cliHasImport()
    ? 'not measured here: bench/import-memory.ts measures the CLI import (peak RSS on generated CSV files)'
    : 'not measured: the CLI has no import command (content-service --help)';
  console.log(`CLI RSS through a 1 GB CSV: ${cli}`);
  return { rows, clients, peakMiB, runs, cli };
});
