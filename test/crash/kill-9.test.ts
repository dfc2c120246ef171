// Crash safety: the server is killed with SIGKILL in the middle of imports, creates and patches, several times,
// on SQLite and on PostgreSQL. After each crash the database passes its integrity check and, after a restart,
// every acknowledged write is there, no import call is half-stored, and no record is corrupt.
// CRASH_CYCLES (default 3) sets the number of crashes per database.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { Admin, bootstrapAdmin } from '../support/client.js';
import { postgresTarget, sqliteTarget, type Target } from '../support/databases.js';
import { checkIntegrity } from '../support/integrity.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';

const CYCLES = Number(process.env.CRASH_CYCLES ?? 3);
const BATCH_ROWS = 400;
const PATCHED_RECORDS = 12;

interface BatchEntry {
  validRows: number;
  acknowledged: boolean;
  importedCount?: number;
}

interface Ledger {
  sent: number;
  acknowledged: number;
  /** Import calls by batch tag: the rows that should be stored, and whether the call was acknowledged. */
  batches: Map<string, BatchEntry>;
  /** Product records that are patched: the last acknowledged `n` and the one in flight when the server died. */
  counters: Map<string, { acknowledged: number; inFlight: number | null }>;
  /** Acknowledged creates: id → data. */
  created: Map<string, Record<string, unknown>>;
}

/** True when the failure is the server going away (the outcome of the request is unknown). */
function isConnectionLoss(error: unknown): boolean {
  const text = `${String(error)} ${String((error as { cause?: unknown }).cause)}`;
  return /fetch failed|ECONNRESET|ECONNREFUSED|socket|other side closed|terminated/i.test(text);
}

/** Runs `step` until the server dies; a step's answer is checked inside it, a lost connection ends the loop. */
async function untilCrash(step: () => Promise<void>): Promise<void> {
  for (;;) {
    try {
      await step();
    } catch (error) {
      if (isConnectionLoss(error)) return;
      throw error;
    }
  }
}

function workload(admin: Admin, ledger: Ledger, productModelId: string, noteModelId: string, cycle: number): Promise<void>[] {
  let batchNumber = 0;
  const importer = (name: string) =>
    untilCrash(async () => {
      const batch = `c${cycle}-${name}-${batchNumber++}`;
      // Every third call carries one bad row: the valid rows of the call are stored, the bad one reported.
      const bad = batchNumber % 3 === 0 ? 7 : -1;
      const rows = Array.from({ length: BATCH_ROWS }, (_, row) => ({
        sku: `${batch}-${row}`,
        title: `Item ${row} of ${batch}`,
        price: row === bad ? 'not a number' : row + 0.99,
        batch,
      }));
      const entry: BatchEntry = { validRows: BATCH_ROWS - (bad >= 0 ? 1 : 0), acknowledged: false };
      ledger.batches.set(batch, entry);
      ledger.sent += 1;
      const result = await admin.importRows(productModelId, rows);
      entry.acknowledged = true;
      entry.importedCount = result.importedCount;
      ledger.acknowledged += 1;
      assert.equal(result.importedCount, entry.validRows, JSON.stringify(result.errors));
    });
  const patcher = (ids: string[]) =>
    untilCrash(async () => {
      for (const id of ids) {
        const counter = ledger.counters.get(id)!;
        const next = counter.acknowledged + 1;
        counter.inFlight = next;
        ledger.sent += 1;
        await admin.ok(`mutation($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }`, {
          input: { id, data: { n: next } },
        });
        counter.acknowledged = next;
        counter.inFlight = null;
        ledger.acknowledged += 1;
      }
    });
  const creator = () =>
    untilCrash(async () => {
      const products = [...ledger.counters.keys()];
      const data = {
        title: `note ${ledger.created.size} in cycle ${cycle}`,
        product: products[ledger.created.size % products.length]!,
      };
      ledger.sent += 1;
      const record = await admin.createRecord(noteModelId, data);
      ledger.created.set(record.id, data);
      ledger.acknowledged += 1;
    });
  const ids = [...ledger.counters.keys()];
  return [
    importer('a'),
    importer('b'),
    patcher(ids.slice(0, PATCHED_RECORDS / 2)),
    patcher(ids.slice(PATCHED_RECORDS / 2)),
    creator(),
  ];
}

async function verifyAfterRestart(admin: Admin, ledger: Ledger, productModelId: string, noteModelId: string): Promise<number> {
  const products = await admin.listAll(productModelId);
  const byBatch = new Map<string, number>();
  const skus = new Set<string>();
  for (const product of products) {
    assert.ok(!skus.has(product.data.sku), `SKU ${product.data.sku} stored once`);
    skus.add(product.data.sku);
    if (product.data.batch !== undefined) byBatch.set(product.data.batch, (byBatch.get(product.data.batch) ?? 0) + 1);
  }
  let lost = 0;
  for (const [batch, entry] of ledger.batches) {
    const stored = byBatch.get(batch) ?? 0;
    if (entry.acknowledged) {
      if (stored !== entry.importedCount) lost += 1;
      assert.equal(stored, entry.importedCount, `acknowledged import ${batch}: all its ${entry.importedCount} rows are stored`);
    } else {
      assert.ok(
        stored === 0 || stored === entry.validRows,
        `import ${batch} in flight at the crash: all or nothing, found ${stored} of ${entry.validRows}`,
      );
    }
  }
  for (const batch of byBatch.keys()) assert.ok(ledger.batches.has(batch), `batch ${batch} was sent`);

  const byId = new Map(products.map((product) => [product.id, product.data]));
  for (const [id, counter] of ledger.counters) {
    const n = byId.get(id)?.n ?? 0;
    if (n < counter.acknowledged) lost += 1;
    assert.ok(
      n === counter.acknowledged || n === counter.inFlight,
      `record ${id}: n is ${n}, acknowledged ${counter.acknowledged}, in flight ${counter.inFlight}`,
    );
    counter.acknowledged = n;
    counter.inFlight = null;
  }

  const notes = new Map((await admin.listAll(noteModelId)).map((note) => [note.id, note.data]));
  for (const [id, data] of ledger.created) {
    if (!notes.has(id)) lost += 1;
    assert.deepEqual(notes.get(id), data, `acknowledged create ${id} is stored as sent`);
  }
  // A create in flight at the crash may have landed; nothing else may.
  assert.ok(notes.size - ledger.created.size <= 1, `${notes.size} notes stored, ${ledger.created.size} acknowledged`);
  for (const id of notes.keys()) ledger.created.set(id, notes.get(id)!);

  const [productModel, noteModel] = [await admin.getModel(productModelId), await admin.getModel(noteModelId)];
  assert.equal(productModel.recordCount, products.length, 'kept product count = records listed');
  assert.equal(noteModel.recordCount, notes.size, 'kept note count = records listed');
  return lost;
}

async function crashCycles(target: Target): Promise<void> {
  const databaseUrl = target.name === 'SQLite' ? undefined : target.url('crash');
  const dir = mkdtempSync(join(tmpdir(), 'cs-crash-'));
  let server: TestServer = await startServer({ process: true, dir, ...(databaseUrl ? { databaseUrl } : {}) });
  const credentials = (await bootstrapAdmin(server)).credentials;
  let admin = new Admin(server, credentials);
  const productModel = await admin.createProductModel({
    fields: [
      { key: 'sku', label: 'SKU', type: 'text', required: true },
      { key: 'title', label: 'Title', type: 'text', required: true },
      { key: 'price', label: 'Price', type: 'number' },
      { key: 'batch', label: 'Batch', type: 'text' },
      { key: 'n', label: 'N', type: 'number' },
    ],
  });
  const noteModel = await admin.createModel({
    name: 'Note',
    fields: [
      { key: 'title', label: 'Title', type: 'text', required: true },
      { key: 'product', label: 'Product', type: 'relation', relationTo: `model:${productModel.slug}`, required: true },
    ],
  });
  const ledger: Ledger = { sent: 0, acknowledged: 0, batches: new Map(), counters: new Map(), created: new Map() };
  for (let index = 0; index < PATCHED_RECORDS; index++) {
    const record = await admin.createRecord(productModel.id, { sku: `counter-${index}`, title: `Counter ${index}`, n: 0 });
    ledger.counters.set(record.id, { acknowledged: 0, inFlight: null });
  }

  const checks = new Set<string>();
  let lost = 0;
  try {
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const acknowledgedBefore = ledger.acknowledged;
      const writers = workload(admin, ledger, productModel.id, noteModel.id, cycle);
      // Kill once writes are flowing, at a point that differs from cycle to cycle.
      const flowing = 20 + cycle * 15;
      await waitFor(() => ledger.acknowledged - acknowledgedBefore >= flowing, {
        timeoutMs: 60_000,
        intervalMs: 5,
        message: () =>
          `crash ${cycle}: ${ledger.acknowledged - acknowledgedBefore} of ${flowing} writes acknowledged before the kill ` +
          `(${ledger.sent} sent in all); the server's last output:\n${server.logs().slice(-2000)}`,
      });
      await sleep(Math.floor(Math.random() * 150));
      server.kill('SIGKILL');
      await Promise.all(writers);
      const exit = await server.stop();
      assert.equal(exit.signal, 'SIGKILL', 'the server was killed, not stopped');

      const integrity = await checkIntegrity(server.databaseUrl);
      integrity.checks.forEach((check) => checks.add(check));
      assert.deepEqual(integrity.problems, [], `integrity after crash ${cycle}`);

      server = await startServer({ process: true, dir, ...(databaseUrl ? { databaseUrl } : {}) });
      admin = new Admin(server, credentials);
      lost += await verifyAfterRestart(admin, ledger, productModel.id, noteModel.id);
    }
  } finally {
    await server.dispose();
  }
  const importedRows = [...ledger.batches.values()].reduce((sum, batch) => sum + (batch.importedCount ?? 0), 0);
  console.log(
    `# crash safety (${target.name}): ${CYCLES} kill -9 crashes survived; ${ledger.sent} writes sent, ` +
      `${ledger.acknowledged} acknowledged (${ledger.batches.size} import calls, ${importedRows} rows acknowledged), ` +
      `writes lost: ${lost}; checks: ${[...checks].join('; ')}`,
  );
  assert.equal(lost, 0);
}

const postgres = await postgresTarget();
const targets: (Target | { failure: string })[] = [sqliteTarget(), postgres];

for (const target of targets) {
  if ('failure' in target) {
    test('crash safety on PostgreSQL (CI=true requires PostgreSQL)', () => assert.fail(target.failure));
    continue;
  }
  describe(`crash safety (${target.name})`, { skip: target.skip }, () => {
    after(() => target.cleanup());
    test(`kill -9 during imports, creates and patches, ${CYCLES} times: nothing acknowledged is lost, nothing half-stored, database intact`, () =>
      crashCycles(target));
  });
}
