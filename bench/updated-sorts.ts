/**
 * Profiling aid (issue 13): the store's pages in each timestamp order on SQLite, in process (no HTTP), so that a
 * change to how the updatedAt orders are served can be compared with the createdAt ones and with an earlier build.
 * A fresh database of --rows records (1000-row imports), then a --modified share of them given a later updated
 * time (some in a millisecond other records were created in); then pages of 100 at offsets 0, 100, 10,000 and the
 * last page, unfiltered (`list`) and filtered on a text field matching a third of the records (`find`).
 * Printed: the median and the 90th percentile of --requests reads of each, in ms, and the load average.
 *
 * The store is imported from dist/ (build first).
 *
 *   node --import tsx bench/updated-sorts.ts [--rows 200000] [--modified 0.1] [--requests 200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { readListing, type RecordSort } from '../dist/domain/listing.js';
import { newId } from '../dist/ids.js';
import { openStore } from '../dist/store/open-store.js';
import type { NewRecord } from '../dist/store/store.js';
import { Args } from './lib/args.js';

const args = new Args();
const rows = args.int('rows', 200_000);
const modifiedShare = Number(args.string('modified', '0.1'));
const requests = args.int('requests', 200);

const dir = mkdtempSync(join(tmpdir(), 'cs-updated-sorts-'));
const file = join(dir, 'bench.db');
const store = await openStore(`sqlite:${file}`);
try {
  const { workspace } = await store.tenancy.ensureMembership({
    orgSlug: 'bench',
    workspaceSlug: 'main',
    email: 'bench@example.com',
    role: null,
    defaultRole: 'owner',
  });
  const model = await store.models.create(workspace.id, newId(), {
    name: 'Item',
    slug: 'item',
    description: null,
    icon: null,
    color: null,
    displayField: 'name',
    fields: [
      { key: 'name', label: 'name', type: 'text', required: true },
      { key: 'colour', label: 'colour', type: 'text', required: false },
    ],
    product: null,
    deliveryAccess: 'none',
  });
  for (let start = 0; start < rows; start += 1000) {
    const batch: NewRecord[] = [];
    for (let index = start; index < Math.min(rows, start + 1000); index++) {
      const data = { name: `Item ${index} ${'x'.repeat(120)}`, colour: ['red', 'green', 'blue'][index % 3]! };
      batch.push({ id: newId(), data, dataText: JSON.stringify(data), sku: null, links: [] });
    }
    await store.records.insertMany({ model, userId: null }, batch);
  }
  const db = new Database(file);
  const every = Math.max(1, Math.round(1 / modifiedShare));
  const modified = db
    .prepare(`UPDATE records SET updated_at = created_at + 1 + (rowid * 7919) % 5000 WHERE model_id = ? AND rowid % ? = 0`)
    .run(model.id, every).changes;
  db.close();
  console.log(
    `${rows} records, ${modified} modified; load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  );

  const sorts: RecordSort[] = ['updatedAt_desc', 'updatedAt_asc', 'createdAt_desc', 'createdAt_asc'];
  const offsets = [0, 100, 10_000, rows - 100];
  const time = async (read: () => Promise<unknown>, count: number) => {
    const times: number[] = [];
    for (let index = 0; index < count + 10; index++) {
      const start = performance.now();
      await read();
      if (index >= 10) times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return `${times[Math.floor(times.length / 2)]!.toFixed(3)} / ${times[Math.floor(times.length * 0.9)]!.toFixed(3)}`;
  };
  console.log('| read | sort | offset | ms median / p90 |');
  console.log('|---|---|---:|---:|');
  for (const sort of sorts) {
    for (const offset of offsets) {
      const count = offset > 1000 ? Math.max(10, Math.round(requests / 10)) : requests;
      const cell = await time(() => store.records.list(model.id, { sort, limit: 100, offset }), count);
      console.log(`| list | ${sort} | ${offset} | ${cell} |`);
    }
    for (const offset of [0, 100, 10_000]) {
      const query = readListing(model, { sort, filter: { colour: 'red' }, limit: 100, offset });
      const count = offset > 1000 ? Math.max(10, Math.round(requests / 10)) : requests;
      const cell = await time(() => store.records.find(model.id, query), count);
      console.log(`| find colour = red | ${sort} | ${offset} | ${cell} |`);
    }
  }
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
