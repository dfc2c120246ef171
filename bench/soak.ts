/**
 * Soak: mixed reads and writes (list, get, delivery, create, patch, import, delete) from many connections for
 * several minutes against one server on loopback. Reports requests, 429s, errors (must be 0), records stored vs
 * acknowledged, the server's RSS over time (flat: last quarter vs second quarter) and latency percentiles.
 *
 *   node --import tsx bench/soak.ts [--minutes 5] [--connections 64] [--max-requests 2000000] [--db sqlite|postgres]
 */
import { runBenchmark, startService } from './lib/run.js';
import { createSoakModel, describeSoak, soak } from './lib/soak.js';

await runBenchmark('soak', async ({ args, kind }) => {
  const connections = args.int('connections', 64);
  const durationMs = Number(args.string('minutes', '5')) * 60_000;
  const maxRequests = args.int('max-requests', 2_000_000);
  const service = await startService(kind);
  try {
    const options = {
      baseUrl: service.server.baseUrl,
      pid: service.server.pid,
      ...service.workspace,
      org: 'bench',
      workspace: 'main',
      connections,
      durationMs,
      maxRequests,
      rssSampleMs: 1000,
    };
    const model = await createSoakModel(options);
    const report = await soak(options, model);
    for (const line of describeSoak(report, connections)) console.log(line);
    for (const error of report.errors.slice(0, 20)) console.log(`error: ${error}`);
    if (report.errors.length > 0 || report.records.stored !== report.records.expected) process.exitCode = 1;
    return { connections, ...report, errors: report.errors.slice(0, 100) };
  } finally {
    await service.dispose();
  }
});
