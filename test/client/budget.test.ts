// The write budget from the client's side, on a server with a budget of 40 writes per window: 60 rows are one call
// too large (413: split to 40) and then over the budget (429: wait Retry-After, send the same call again).
// These are the end-to-end checks of the wait, in real time: the server counts the budget over a 5-second window
// (`--write-budget-window 5`; the default is the spec's minute, which the clock-driven tests in test/budget/ cover),
// so each test waits once, about 5 s. They run side by side, each in its own workspace (each workspace has its own
// budget), each with a deadline that fails with what happened so far instead of hanging.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ContentClient, type WaitInfo } from '../../src/client/index.js';
import { Admin, bootstrapAdmin } from '../support/client.js';
import { runCli, startServer, type TestServer } from '../support/server.js';
import { withDeadline } from '../support/wait-for.js';

const BUDGET = 40;
const ROWS = 60;
/** The budget's window: long enough that the calls before the 429 all fall in one window, short to wait for. */
const WINDOW_SECONDS = 5;
/** One wait for the window, and the writes around it. */
const DEADLINE_MS = 30_000;
let server: TestServer;
let dir: string;

before(async () => {
  server = await startServer({ writeBudget: BUDGET, extraArgs: ['--write-budget-window', String(WINDOW_SECONDS)] });
  dir = mkdtempSync(join(tmpdir(), 'content-service-budget-'));
});

after(async () => {
  await server?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('write budget', { concurrency: true }, () => {
  test(
    'SDK: 413 splits to the budget, then 429 waits Retry-After once and the same call lands (waits about 5 s)',
    { timeout: 60_000 },
    async () => {
      const admin = await bootstrapAdmin(server, { org: 'sdk', workspace: 'main', role: 'owner' });
      const model = await admin.createProductModel();
      const sizes: [number, number][] = [];
      const waits: WaitInfo[] = [];
      const client = new ContentClient({
        baseUrl: server.url,
        token: admin.token,
        workspaceId: admin.workspaceId,
        onWait: (info) => waits.push(info),
        fetch: async (url, init) => {
          const body = JSON.parse(String(init?.body)) as { variables: { input?: { rows?: unknown[] } } };
          const response = await fetch(url, init);
          const rows = body.variables.input?.rows;
          if (rows) sizes.push([rows.length, response.status]);
          return response;
        },
      });
      const rows = Array.from({ length: ROWS }, (_, i) => ({ sku: `B-${i}`, title: `Row ${i}` }));
      const started = Date.now();
      const summary = await withDeadline(client.importRows(model, rows), {
        timeoutMs: DEADLINE_MS,
        message: () =>
          `the SDK import of ${ROWS} rows (budget ${BUDGET}) did not finish; calls so far (rows, status): ${JSON.stringify(sizes)}`,
      });
      const elapsed = Date.now() - started;
      assert.equal(summary.ok, true);
      assert.equal(summary.created, ROWS);
      assert.equal(client.budget, BUDGET, 'the budget learnt from the 413');
      assert.deepEqual(sizes, [
        [60, 413],
        [40, 200],
        [20, 429],
        [20, 200],
      ]);
      assert.equal(waits.length, 1);
      assert.ok(
        waits[0]!.retryAfterSeconds >= 1 && waits[0]!.retryAfterSeconds <= WINDOW_SECONDS,
        `Retry-After ${waits[0]!.retryAfterSeconds} s, within the ${WINDOW_SECONDS}-second window`,
      );
      assert.ok(waits[0]!.waitMs >= waits[0]!.retryAfterSeconds * 1000, 'jitter only adds');
      assert.ok(elapsed >= waits[0]!.retryAfterSeconds * 1000, `the wait was honoured (${elapsed} ms)`);
      assert.equal(await admin.total(model.id), ROWS);
    },
  );

  test(
    'CLI: 60 rows with a budget of 40 complete, the wait is shown, exit 0 (waits about 5 s)',
    { timeout: 60_000 },
    async () => {
      const admin: Admin = await bootstrapAdmin(server, { org: 'cli', workspace: 'main', role: 'owner' });
      const model = await admin.createProductModel();
      const path = join(dir, 'rows.csv');
      writeFileSync(path, ['sku,title,price', ...Array.from({ length: ROWS }, (_, i) => `C-${i},Row ${i},${i}.99`)].join('\n'));
      const result = await runCli(
        ['import', path, '--model', model.slug, '--url', server.url, '--token', admin.token, '--workspace-id', admin.workspaceId],
        {
          timeoutMs: DEADLINE_MS,
        },
      );
      assert.notEqual(
        result.code,
        null,
        `the CLI import of ${ROWS} rows (budget ${BUDGET}) did not finish within ${DEADLINE_MS} ms and was stopped:\n${result.stdout}${result.stderr}`,
      );
      assert.equal(result.code, 0, result.stdout + result.stderr);
      const shown = /write budget used up \(HTTP 429\); waiting \d+s \(Retry-After (\d+)s\)/.exec(result.stderr);
      assert.ok(shown, result.stderr);
      assert.ok(Number(shown[1]) >= 1 && Number(shown[1]) <= WINDOW_SECONDS, `Retry-After ${shown[1]} s`);
      assert.match(result.stdout, /created 60, failed 0/);
      assert.match(result.stdout, /waited \S+ for the write budget \(1 wait\)/);
      assert.equal(await admin.total(model.id), ROWS);
    },
  );
});
