/**
 * Delivery caching: a revalidation (GET with the current tag in If-None-Match, answered 304 without running the
 * query) against answering the query (the same GET without it, 200): a page of 100 records of a public model,
 * one request at a time. p50 and p99 client-side and server-side (the durationMs of the server's request log
 * line), and the ratio of the p50s (issue 14's target: a revalidation costs at most 0.1 × the answer). For
 * reference, the same query by POST (never conditional), and GET /healthz: the floor of any request to this server
 * (HTTP handling, the log line) with one trivial database query and no GraphQL.
 *
 *   node --import tsx bench/delivery-cache.ts [--records 1000] [--requests 500] [--max-seconds 10] [--reps 3] [--db sqlite|postgres]
 */
import { performance } from 'node:perf_hooks';
import { Pool, type Dispatcher } from 'undici';
import { seedCatalog } from './lib/catalog.js';
import { runBenchmark, startService } from './lib/run.js';
import { latencySummary, spread, type LatencySummary } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, fmtSpread, printTable } from './lib/table.js';

const PAGE =
  'query ($slug: String!) { public { model { records(modelSlug: $slug, limit: 100) { total hasMore items { id data createdAt updatedAt } } } } }';
const PATH = '/public/bench/main/graphql';

type CellName = 'GET, answered (200)' | 'GET, revalidated (304)' | 'POST, answered (200)' | 'GET /healthz (floor)';

interface Sent {
  status: number;
  etag: string | undefined;
  requestId: string;
  ms: number;
}

/** The request of a cell: the page by GET (with the tag for a revalidation) or POST, or the health check. */
function requestOf(cell: CellName, slug: string, etag: string | undefined): Dispatcher.RequestOptions {
  if (cell === 'GET /healthz (floor)') return { path: '/healthz', method: 'GET' };
  if (cell === 'POST, answered (200)') {
    return {
      path: PATH,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: PAGE, variables: { slug } }),
    };
  }
  const conditional = cell === 'GET, revalidated (304)' ? { 'if-none-match': etag! } : {};
  return {
    path: `${PATH}?${new URLSearchParams({ query: PAGE, variables: JSON.stringify({ slug }) })}`,
    method: 'GET',
    headers: { accept: 'application/json', ...conditional },
  };
}

/** One request; the body is read whole (the client's time includes receiving it). */
async function send(pool: Pool, cell: CellName, slug: string, etag: string | undefined): Promise<Sent> {
  const options = requestOf(cell, slug, etag);
  const started = performance.now();
  const response = await pool.request(options);
  const text = await response.body.text();
  const ms = performance.now() - started;
  const expected = cell === 'GET, revalidated (304)' ? 304 : 200;
  if (response.statusCode !== expected || text.includes('"errors"')) {
    throw new Error(`${cell}: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
  }
  return {
    status: response.statusCode,
    etag: response.headers.etag as string | undefined,
    requestId: String(response.headers['x-request-id'] ?? ''),
    ms,
  };
}

interface CellRun {
  cell: CellName;
  rep: number;
  client: LatencySummary;
  server: LatencySummary;
}

await runBenchmark('delivery-cache', async ({ args, kind, reps }) => {
  const records = Math.max(100, args.int('records', 1000));
  const requests = args.int('requests', 500);
  const maxSeconds = args.int('max-seconds', 10);
  const service = await startService(kind);
  const runs: CellRun[] = [];
  try {
    const admin = service.client(1);
    const slug = 'product';
    const { modelId, ms } = await seedCatalog(admin, records, slug);
    await admin.request('mutation ($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }', {
      input: { id: modelId, deliveryAccess: 'public' },
    });
    console.log(`${fmtInt(records)} records seeded in ${(ms / 1000).toFixed(1)} s; the page is the first 100`);
    const pool = new Pool(service.server.baseUrl, { connections: 1, pipelining: 1, keepAliveTimeout: 60_000 });
    try {
      const { etag } = await send(pool, 'GET, answered (200)', slug, undefined);
      if (!etag) throw new Error('the answer carries no ETag');
      const cells: CellName[] = ['GET, answered (200)', 'GET, revalidated (304)', 'POST, answered (200)', 'GET /healthz (floor)'];
      for (let rep = 1; rep <= reps; rep++) {
        for (const cell of cells) {
          const warmUntil = Date.now() + 3_000;
          for (let index = 0; index < 50 && (index < 5 || Date.now() < warmUntil); index++) await send(pool, cell, slug, etag);
          const clientMs: number[] = [];
          const requestIds: string[] = [];
          const deadline = Date.now() + maxSeconds * 1000;
          while (clientMs.length < requests && (clientMs.length < 20 || Date.now() < deadline)) {
            const sent = await send(pool, cell, slug, etag);
            if (cell !== 'GET /healthz (floor)' && sent.etag !== etag)
              throw new Error(`${cell}: the tag changed (${sent.etag} after ${etag}) with nothing written`);
            clientMs.push(sent.ms);
            requestIds.push(sent.requestId);
          }
          const serverMs = (await service.server.serverTimes(requestIds)).filter(Number.isFinite);
          const run = { cell, rep, client: latencySummary(clientMs), server: latencySummary(serverMs) };
          runs.push(run);
          console.log(
            `rep ${rep} ${cell}: client p50 ${fmtMs(run.client.p50)} p99 ${fmtMs(run.client.p99)} ms, ` +
              `server p50 ${fmtMs(run.server.p50)} p99 ${fmtMs(run.server.p99)} ms (${run.client.count} requests)`,
          );
        }
      }
    } finally {
      await pool.close();
    }
  } finally {
    await service.dispose();
  }

  const cells = [...new Set(runs.map((run) => run.cell))];
  const summary = cells.map((cell) => {
    const mine = runs.filter((run) => run.cell === cell);
    return {
      cell,
      requests: mine[0]!.client.count,
      clientP50Ms: spread(mine.map((run) => run.client.p50)),
      clientP99Ms: spread(mine.map((run) => run.client.p99)),
      serverP50Ms: spread(mine.map((run) => run.server.p50)),
      serverP99Ms: spread(mine.map((run) => run.server.p99)),
    };
  });
  printTable(
    `delivery route, a page of 100 records (${fmtInt(records)} in the model) on ${kind}, one request at a time — ms, median (min–max) of ${reps}`,
    ['request', 'client p50', 'client p99', 'server p50', 'server p99'],
    summary.map((entry) => [
      entry.cell,
      fmtSpread(entry.clientP50Ms, fmtMs),
      fmtSpread(entry.clientP99Ms, fmtMs),
      fmtSpread(entry.serverP50Ms, fmtMs),
      fmtSpread(entry.serverP99Ms, fmtMs),
    ]),
  );
  const p50 = (cell: CellName, side: 'serverP50Ms' | 'clientP50Ms') =>
    summary.find((entry) => entry.cell === cell)?.[side].median ?? NaN;
  const checks = {
    revalidationOverAnswerServerP50: p50('GET, revalidated (304)', 'serverP50Ms') / p50('GET, answered (200)', 'serverP50Ms'),
    revalidationOverAnswerClientP50: p50('GET, revalidated (304)', 'clientP50Ms') / p50('GET, answered (200)', 'clientP50Ms'),
  };
  console.log(
    `revalidation / answer, p50: server ${fmtRatio(checks.revalidationOverAnswerServerP50)}, ` +
      `client ${fmtRatio(checks.revalidationOverAnswerClientP50)} (target: ≤ 0.1)`,
  );
  return { records, pageSize: 100, requestsPerCell: requests, maxSecondsPerCell: maxSeconds, summary, checks, runs };
});
