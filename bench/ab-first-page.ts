/**
 * Profiling aid (not one of the benchmarks): the first page (limit 100, offset 0) on the admin and the
 * delivery route, this checkout against another one (--base, a built checkout of another commit), both servers on
 * one database seeded once, their requests interleaved round by round (the order alternating) so that the machine's
 * load falls on both alike. Prints each round's server p50 (the durationMs of the request log) and, per checkout and
 * route, the p50 and p99 of all requests and the spread of the round p50s. The statistics of `records` are taken
 * (ANALYZE) after seeding on PostgreSQL, so that both run on the plans of a settled table.
 *
 *   node --import tsx bench/ab-first-page.ts --base /path/to/other/checkout [--db postgres] [--size 200k]
 *     [--rounds 8] [--requests 200]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { Args } from './lib/args.js';
import { seedCatalog } from './lib/catalog.js';
import { cleanupAll } from './lib/cleanup.js';
import { GqlClient } from './lib/client.js';
import { createDatabase, type DbKind } from './lib/database.js';
import { bootstrap, startServer, type ServerHandle } from './lib/server.js';
import { latencySummary } from './lib/stats.js';
import { fmtMs } from './lib/table.js';

const args = new Args();
const base = args.string('base', '');
if (!base) throw new Error('--base <checkout>: the other checkout to compare with (built, with its node_modules)');
const kind = args.string('db', 'postgres') as DbKind;
const size = args.int('size', 200_000);
const rounds = args.int('rounds', 8);
const requests = args.int('requests', 200);

const FIELDS = 'total hasMore items { id data createdAt updatedAt }';
const DELIVERY_PATH = '/public/bench/main/graphql';
const DELIVERY_BODY = JSON.stringify({
  query: `{ public { model { records(modelSlug: "product", limit: 100, offset: 0) { ${FIELDS} } } } }`,
});
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

// The other checkout's own server starter: it runs that checkout's bin/ and dist/.
const other = (await import(join(resolve(base), 'bench', 'lib', 'server.ts'))) as { startServer: typeof startServer };
const database = await createDatabase(kind);
const servers: Record<string, ServerHandle> = {};
const clients: Record<string, GqlClient> = {};
try {
  const workspace = await bootstrap(database.url);
  servers.base = await other.startServer(database.url);
  servers.this = await startServer(database.url);
  for (const tree of ['base', 'this']) clients[tree] = new GqlClient(servers[tree]!.baseUrl, workspace, 2);
  const { modelId } = await seedCatalog(clients.this!, size, 'product', 'public');
  if (kind === 'postgres') {
    const schema = new URL(database.url).searchParams.get('schema')!;
    const admin = new pg.Client({ connectionString: database.url.replace(/\?.*$/, '') });
    await admin.connect();
    await admin.query(`ANALYZE "${schema}".records`);
    await admin.end();
  }
  const adminBody = JSON.stringify({
    query: `query ($m: ID!) { record { list(modelId: $m, limit: 100, offset: 0) { ${FIELDS} } } }`,
    variables: { m: modelId },
  });
  console.log(`${size} records on ${kind}, base ${base}; load average ${loadAverage()}`);
  const all: Record<string, number[]> = {};
  const roundP50s: Record<string, number[]> = {};
  for (let round = 1; round <= rounds; round++) {
    const line: string[] = [];
    for (const tree of round % 2 === 1 ? ['base', 'this'] : ['this', 'base']) {
      for (const route of ['admin', 'delivery']) {
        const client = clients[tree]!;
        const send = () => (route === 'admin' ? client.send(adminBody) : client.sendDelivery(DELIVERY_PATH, DELIVERY_BODY));
        for (let index = 0; index < 30; index++) await send();
        const ids: string[] = [];
        for (let index = 0; index < requests; index++) ids.push((await send()).requestId);
        const times = (await servers[tree]!.serverTimes(ids)).filter(Number.isFinite);
        const key = `${tree}, ${route} route`;
        (all[key] ??= []).push(...times);
        (roundP50s[key] ??= []).push(latencySummary(times).p50);
        line.push(`${key} ${fmtMs(latencySummary(times).p50)}`);
      }
    }
    console.log(`round ${round}: ${line.join(', ')} ms p50; load average ${loadAverage()}`);
  }
  for (const key of Object.keys(all).sort()) {
    const summary = latencySummary(all[key]!);
    const sorted = [...roundP50s[key]!].sort((a, b) => a - b);
    console.log(
      `${key}: p50 ${fmtMs(summary.p50)} ms, p99 ${fmtMs(summary.p99)} ms of ${summary.count} requests; ` +
        `round p50s ${fmtMs(sorted[0]!)}–${fmtMs(sorted.at(-1)!)}, median ${fmtMs(sorted[Math.floor(sorted.length / 2)]!)}`,
    );
  }
} finally {
  await Promise.all(Object.values(clients).map((client) => client.close()));
  await Promise.all(Object.values(servers).map((server) => server.stop()));
  await database.dispose();
  await cleanupAll();
}
