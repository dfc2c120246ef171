/**
 * Single writes: record.create and record.patch, one record per request, at 1, 8 and 32 concurrent connections
 * (a closed loop: each connection sends its next request when the previous one answered). One server and
 * database per database kind; patches go to records seeded beforehand, each connection to its own records.
 *
 *   node --import tsx bench/single-writes.ts [--connections 1,8,32] [--duration 5] [--warmup 1] [--seed 2000] [--reps 3]
 */
import { productRow, seedCatalog, skuPrefix } from './lib/catalog.js';
import { closedLoop, type LoadResult } from './lib/load.js';
import { runBenchmark, startService } from './lib/run.js';
import { spread } from './lib/stats.js';
import { fmtInt, fmtMs, fmtSpread, printTable } from './lib/table.js';

const CREATE = 'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }';
const PATCH = 'mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }';
const LIST_IDS =
  'query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { hasMore items { id } } } }';

type Operation = 'create' | 'patch';

await runBenchmark('single-writes', async ({ args, kind, reps }) => {
  const connectionCounts = args.ints('connections', [1, 8, 32]);
  const durationMs = args.int('duration', 5) * 1000;
  const warmupMs = args.int('warmup', 1) * 1000;
  const seedRows = Math.max(args.int('seed', 2000), Math.max(...connectionCounts));

  const service = await startService(kind);
  try {
    const setup = service.client(1);
    const { modelId } = await seedCatalog(setup, seedRows);
    const ids: string[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await setup.request<{ record: { list: { hasMore: boolean; items: { id: string }[] } } }>(LIST_IDS, {
        model: modelId,
        offset,
      });
      ids.push(...page.data.record.list.items.map((item) => item.id));
      if (!page.data.record.list.hasMore) break;
    }
    const prefix = skuPrefix();
    let created = 0;

    const runs: { operation: Operation; connections: number; rep: number; result: LoadResult }[] = [];
    for (let rep = 1; rep <= reps; rep++) {
      for (const operation of ['create', 'patch'] as const) {
        for (const connections of connectionCounts) {
          const client = service.client(connections);
          const send = async (worker: number, n: number): Promise<number> => {
            if (operation === 'create') {
              const data = productRow(prefix, created++);
              return (await client.request(CREATE, { input: { modelId, data } })).ms;
            }
            // Worker w patches records w, w + c, w + 2c, …: no two connections write the same record at once.
            const id = ids[(worker + ((n * connections) % ids.length)) % ids.length]!;
            return (await client.request(PATCH, { input: { id, data: { price: (n % 1000) + 0.5, stock: n % 500 } } })).ms;
          };
          const result = await closedLoop(connections, warmupMs, durationMs, send);
          await client.close();
          runs.push({ operation, connections, rep, result });
          console.log(
            `rep ${rep} ${operation} × ${connections}: ${fmtInt(result.requestsPerSecond)} req/s, p50 ${fmtMs(result.p50)} ms, p99 ${fmtMs(result.p99)} ms`,
          );
        }
      }
    }

    const summary = (['create', 'patch'] as const).flatMap((operation) =>
      connectionCounts.map((connections) => {
        const mine = runs
          .filter((run) => run.operation === operation && run.connections === connections)
          .map((run) => run.result);
        return {
          operation,
          connections,
          requestsPerSecond: spread(mine.map((result) => result.requestsPerSecond)),
          p50Ms: spread(mine.map((result) => result.p50)),
          p99Ms: spread(mine.map((result) => result.p99)),
        };
      }),
    );
    printTable(
      `Single writes on ${kind}: ${durationMs / 1000} s per cell after ${warmupMs / 1000} s warm-up — median (min–max) of ${reps}`,
      ['operation', 'connections', 'requests/s', 'p50 ms', 'p99 ms'],
      summary.map((entry) => [
        `record.${entry.operation}`,
        entry.connections,
        fmtSpread(entry.requestsPerSecond, fmtInt),
        fmtSpread(entry.p50Ms, fmtMs),
        fmtSpread(entry.p99Ms, fmtMs),
      ]),
    );
    return { durationSeconds: durationMs / 1000, warmupSeconds: warmupMs / 1000, seededRecords: seedRows, summary, runs };
  } finally {
    await service.dispose();
  }
});
