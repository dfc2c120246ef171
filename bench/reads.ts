/**
 * Reads: record.list with limit 100 at offset 0, 10,000 and near the end (the last 100 records), one request at
 * a time, at each catalogue size (default 1,000 and 200,000 records; --large: 1,000 and 1,000,000). p50 and p99
 * client-side and server-side (the durationMs of the server's request log line). The cost of `total`: at offset 0
 * the same list selecting only `items` and selecting `total` and `items`, on the same server. The same first page
 * on the delivery route too (`/public/bench/main/graphql`, no token; the model is public), which finds the
 * workspace by its slugs and the model by its slug instead of authenticating a token.
 *
 *   node --import tsx bench/reads.ts [--sizes 1000,200000 | --large] [--requests 200] [--max-seconds 10] [--reps 3]
 */
import { seedCatalog } from './lib/catalog.js';
import type { GqlClient } from './lib/client.js';
import { measureRequests, type Send } from './lib/measure.js';
import { runBenchmark, startService } from './lib/run.js';
import { spread, type LatencySummary } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, fmtSpread, printTable } from './lib/table.js';

const ITEM_FIELDS = 'items { id data createdAt updatedAt }';
const SELECTIONS = {
  list: `total hasMore ${ITEM_FIELDS}`,
  'items only': ITEM_FIELDS,
  'items + total': `total ${ITEM_FIELDS}`,
  'list, delivery route': `total hasMore ${ITEM_FIELDS}`,
} as const;
type QueryName = keyof typeof SELECTIONS;
/** The workspace bench/lib/server.ts bootstraps, and the slug seedCatalog gives the model. */
const DELIVERY_PATH = '/public/bench/main/graphql';
const MODEL_SLUG = 'product';

function listBody(modelId: string, offset: number, query: QueryName): string {
  if (query === 'list, delivery route') {
    return JSON.stringify({
      query: `query ($slug: String!, $offset: Int) { public { model { records(modelSlug: $slug, limit: 100, offset: $offset) { ${SELECTIONS[query]} } } } }`,
      variables: { slug: MODEL_SLUG, offset },
    });
  }
  return JSON.stringify({
    query: `query ($model: ID!, $offset: Int) { record { list(modelId: $model, limit: 100, offset: $offset) { ${SELECTIONS[query]} } } }`,
    variables: { model: modelId, offset },
  });
}

function sender(client: GqlClient, query: QueryName): Send {
  return query === 'list, delivery route' ? (body) => client.sendDelivery(DELIVERY_PATH, body) : (body) => client.send(body);
}

interface CellRun {
  size: number;
  query: QueryName;
  offset: number;
  rep: number;
  client: LatencySummary;
  server: LatencySummary;
}

await runBenchmark('reads', async ({ args, kind, reps }) => {
  const sizes = args.ints('sizes', args.flag('large') ? [1000, 1_000_000] : [1000, 200_000]);
  const requests = args.int('requests', 200);
  const maxSeconds = args.int('max-seconds', 10);
  const runs: CellRun[] = [];
  const seeding: { size: number; seconds: number }[] = [];

  for (const size of sizes) {
    const service = await startService(kind);
    try {
      const client = service.client(1);
      const { modelId, ms } = await seedCatalog(client, size, MODEL_SLUG, 'public');
      seeding.push({ size, seconds: ms / 1000 });
      console.log(`${fmtInt(size)} records seeded in ${(ms / 1000).toFixed(1)} s`);
      const offsets = [...new Set([0, ...(size >= 10_100 ? [10_000] : []), Math.max(0, size - 100)])];
      const cells: { query: QueryName; offset: number }[] = [
        ...offsets.map((offset) => ({ query: 'list' as const, offset })),
        { query: 'items only', offset: 0 },
        { query: 'items + total', offset: 0 },
        { query: 'list, delivery route', offset: 0 },
      ];
      for (let rep = 1; rep <= reps; rep++) {
        for (const cell of cells) {
          const body = listBody(modelId, cell.offset, cell.query);
          const result = await measureRequests(service, sender(client, cell.query), body, requests, maxSeconds);
          runs.push({ size, ...cell, rep, ...result });
          console.log(
            `rep ${rep} ${fmtInt(size)} records, ${cell.query} at offset ${fmtInt(cell.offset)}: ` +
              `client p50 ${fmtMs(result.client.p50)} p99 ${fmtMs(result.client.p99)} ms, server p50 ${fmtMs(result.server.p50)} p99 ${fmtMs(result.server.p99)} ms (${result.client.count} requests)`,
          );
        }
      }
    } finally {
      await service.dispose();
    }
  }

  const keys = [...new Map(runs.map((run) => [`${run.size}|${run.query}|${run.offset}`, run])).values()];
  const summary = keys.map(({ size, query, offset }) => {
    const mine = runs.filter((run) => run.size === size && run.query === query && run.offset === offset);
    return {
      size,
      query,
      offset,
      requests: mine[0]!.client.count,
      clientP50Ms: spread(mine.map((run) => run.client.p50)),
      clientP99Ms: spread(mine.map((run) => run.client.p99)),
      serverP50Ms: spread(mine.map((run) => run.server.p50)),
      serverP99Ms: spread(mine.map((run) => run.server.p99)),
    };
  });
  printTable(
    `record.list limit 100 on ${kind}, one request at a time — ms, median (min–max) of ${reps}`,
    ['records', 'selection', 'offset', 'client p50', 'client p99', 'server p50', 'server p99'],
    summary.map((entry) => [
      fmtInt(entry.size),
      entry.query,
      fmtInt(entry.offset),
      fmtSpread(entry.clientP50Ms, fmtMs),
      fmtSpread(entry.clientP99Ms, fmtMs),
      fmtSpread(entry.serverP50Ms, fmtMs),
      fmtSpread(entry.serverP99Ms, fmtMs),
    ]),
  );

  const at = (size: number, query: QueryName, offset = 0) =>
    summary.find((entry) => entry.size === size && entry.query === query && entry.offset === offset)?.serverP50Ms.median ?? NaN;
  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  const checks = {
    offset0ServerP50AtLargestMs: at(largest, 'list'),
    offset0ServerP50AtSmallestMs: at(smallest, 'list'),
    growthLargestOverSmallest: at(largest, 'list') / at(smallest, 'list'),
    totalCostServerP50Ms: Object.fromEntries(sizes.map((size) => [size, at(size, 'items + total') - at(size, 'items only')])),
    deliveryOffset0ServerP50Ms: Object.fromEntries(sizes.map((size) => [size, at(size, 'list, delivery route')])),
  };
  console.log(
    `offset 0 server p50: ${fmtMs(checks.offset0ServerP50AtLargestMs)} ms at ${fmtInt(largest)} records, ` +
      `${fmtRatio(checks.growthLargestOverSmallest)} × its ${fmtMs(checks.offset0ServerP50AtSmallestMs)} ms at ${fmtInt(smallest)} ` +
      `(target: < 1 ms at 1,000,000 and ≤ 1.5 ×); cost of total (server p50, items+total − items only): ` +
      sizes.map((size) => `${fmtMs(checks.totalCostServerP50Ms[size]!)} ms at ${fmtInt(size)}`).join(', ') +
      '; delivery route offset 0 server p50: ' +
      sizes.map((size) => `${fmtMs(checks.deliveryOffset0ServerP50Ms[size]!)} ms at ${fmtInt(size)}`).join(', '),
  );
  return { sizes, requestsPerCell: requests, maxSecondsPerCell: maxSeconds, seeding, summary, checks, runs };
});
