// The soak in its short form (the long form is `npm run bench:soak`): mixed reads and writes from many
// connections against a real server for a bounded time. No answer other than a success or a 429, the stored
// records match the acknowledged writes, and the server's memory stays flat. SOAK_SECONDS (default 20) and
// SOAK_CONNECTIONS (default 32) size it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSoakModel, describeSoak, soak } from '../../bench/lib/soak.js';
import { bootstrapAdmin } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 32);

let server: TestServer;

before(async () => {
  // Request logging off: the harness keeps what a server prints in memory.
  server = await startServer({ process: true, env: { LOG_LEVEL: 'warn' } });
});

after(() => server.dispose());

test(`soak: ${CONNECTIONS} connections of mixed reads and writes for ${SECONDS} s, no errors, nothing lost, memory flat`, async () => {
  const admin = await bootstrapAdmin(server);
  const options = {
    baseUrl: server.url,
    pid: server.pid!,
    token: admin.token,
    workspaceId: admin.workspaceId,
    org: 'acme',
    workspace: 'main',
    connections: CONNECTIONS,
    durationMs: SECONDS * 1000,
    maxRequests: 200_000,
  };
  const report = await soak(options, await createSoakModel(options));
  for (const line of describeSoak(report, CONNECTIONS)) console.log(`# soak: ${line}`);

  assert.deepEqual(report.errors.slice(0, 10), [], `${report.errors.length} answers were errors`);
  assert.ok(report.requests > CONNECTIONS * 10, `the soak sent ${report.requests} requests`);
  for (const operation of ['list', 'get', 'create', 'patch', 'import', 'delete', 'delivery'] as const) {
    assert.ok(report.latency[operation].count > 0, `${operation} was exercised`);
  }
  assert.equal(report.records.stored, report.records.expected, 'records stored = acknowledged creates + imported rows − deletes');
  // Flat: after warm-up, the last quarter's RSS is within 25 % (+ 16 MiB of allocator slack) of the second quarter's.
  const limit = report.rss.secondQuarterMiB * 1.25 + 16;
  assert.ok(
    report.rss.lastQuarterMiB <= limit,
    `RSS grew from ${report.rss.secondQuarterMiB.toFixed(1)} to ${report.rss.lastQuarterMiB.toFixed(1)} MiB`,
  );
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
});
