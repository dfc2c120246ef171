/**
 * Profiling aid: what each part of the service's records schema costs an import, measured with the raw driver
 * (no service). The same rows (the import benchmark's catalogue) go into variants of the schema, 1000 rows per
 * transaction, each variant on a fresh SQLite file with the store's connection settings and background
 * checkpoints; variants run in turn, --reps times, and the median milliseconds per 1000 rows are printed, wall-clock
 * and CPU time (the process's, all threads: the checkpoints' too; it moves much less than wall-clock time with
 * other work on the machine), and the bytes written (the WAL, and the database file by the checkpoints).
 *
 *   node --import tsx bench/import-schema-parts.ts [--rows 100000] [--reps 5] [--only 0,1]
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { newId } from '../src/ids.js';
import { BackgroundCheckpointer } from '../src/store/sqlite/checkpointer.js';
import { migrate } from '../src/store/sqlite/migrations.js';
import { Args } from './lib/args.js';
import { productRows, skuPrefix } from './lib/catalog.js';
import { cleanupAll } from './lib/cleanup.js';
import { createDatabase } from './lib/database.js';
import { rawRows, type RawRows } from './lib/raw.js';
import { spread } from './lib/stats.js';
import { fmtInt, fmtMs, fmtSpread, printTable } from './lib/table.js';

interface Variant {
  name: string;
  /** Makes the schema; returns the INSERT, the values of one row, and what runs first in each batch's transaction. */
  setup(db: Database.Database): {
    sql: string;
    values: (rows: RawRows, index: number, at: number) => unknown[];
    beforeBatch?: (at: number) => void;
  };
  foreignKeys?: boolean;
  /** SQLite's own checkpoints on the connection (every 1000 WAL pages, with their fsyncs) instead of the store's worker. */
  inlineCheckpoints?: boolean;
}

const SMALLEST = `CREATE TABLE records (id TEXT PRIMARY KEY, model_id TEXT NOT NULL, data TEXT NOT NULL, sku TEXT, created_at INTEGER NOT NULL);
  CREATE UNIQUE INDEX records_model_sku ON records (model_id, sku);
  CREATE INDEX records_model_created ON records (model_id, created_at, id);`;

let modelId = '';
let workspaceId = '';
const userId = newId();

function serviceSchema(db: Database.Database, dropUpdated = false): void {
  migrate(db);
  workspaceId = newId();
  const orgId = newId();
  db.prepare('INSERT INTO organisations (id, slug, created_at) VALUES (?, ?, ?)').run(orgId, 'bench', 0);
  db.prepare('INSERT INTO workspaces (id, org_id, slug, created_at) VALUES (?, ?, ?, ?)').run(workspaceId, orgId, 'main', 0);
  modelId = newId();
  db.prepare(
    `INSERT INTO models (id, workspace_id, slug, name, display_field, fields, product, delivery_access, created_at, updated_at)
     VALUES (?, ?, 'product', 'product', 'title', '[]', NULL, 'none', 0, 0)`,
  ).run(modelId, workspaceId);
  if (dropUpdated) db.exec('DROP INDEX records_model_updated');
}

const SERVICE_INSERT = `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (model_id, sku) DO NOTHING`;
const serviceValues = (rows: RawRows, index: number, at: number) => [
  rows.ids[index],
  modelId,
  workspaceId,
  rows.data[index],
  rows.skus[index],
  at,
  at,
  userId,
  userId,
];

const VARIANTS: Variant[] = [
  {
    name: 'smallest schema, checkpoints on the connection',
    inlineCheckpoints: true,
    setup(db) {
      db.exec(SMALLEST);
      modelId = newId();
      return {
        sql: 'INSERT INTO records (id, model_id, data, sku, created_at) VALUES (?, ?, ?, ?, ?)',
        values: (rows, index, at) => [rows.ids[index], modelId, rows.data[index], rows.skus[index], at],
      };
    },
  },
  {
    name: 'smallest schema',
    setup(db) {
      db.exec(SMALLEST);
      modelId = newId();
      return {
        sql: 'INSERT INTO records (id, model_id, data, sku, created_at) VALUES (?, ?, ?, ?, ?)',
        values: (rows, index, at) => [rows.ids[index], modelId, rows.data[index], rows.skus[index], at],
      };
    },
  },
  {
    name: 'smallest + the service columns',
    setup(db) {
      db.exec(
        SMALLEST.replace(
          'created_at INTEGER NOT NULL)',
          'created_at INTEGER NOT NULL, workspace_id TEXT NOT NULL, updated_at INTEGER NOT NULL, created_by TEXT, updated_by TEXT)',
        ),
      );
      modelId = newId();
      workspaceId = newId();
      return {
        sql: 'INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        values: serviceValues,
      };
    },
  },
  {
    name: 'service schema, no FK, no updated_at index',
    setup(db) {
      serviceSchema(db, true);
      return { sql: SERVICE_INSERT, values: serviceValues };
    },
  },
  {
    name: 'service schema, no FK',
    setup(db) {
      serviceSchema(db);
      return { sql: SERVICE_INSERT, values: serviceValues };
    },
  },
  {
    name: 'service schema, no updated_at index',
    foreignKeys: true,
    setup(db) {
      serviceSchema(db, true);
      return { sql: SERVICE_INSERT, values: serviceValues };
    },
  },
  {
    name: 'service schema (FK on), no ON CONFLICT',
    foreignKeys: true,
    setup(db) {
      serviceSchema(db);
      return { sql: SERVICE_INSERT.replace(' ON CONFLICT (model_id, sku) DO NOTHING', ''), values: serviceValues };
    },
  },
  {
    name: 'service schema, no FK, per-batch values from a temp row',
    setup(db) {
      serviceSchema(db);
      db.exec('CREATE TEMP TABLE import_batch (model_id TEXT, workspace_id TEXT, at INTEGER, user_id TEXT)');
      const clear = db.prepare('DELETE FROM temp.import_batch');
      const fill = db.prepare('INSERT INTO temp.import_batch VALUES (?, ?, ?, ?)');
      return {
        sql: `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by)
              SELECT ?, b.model_id, b.workspace_id, ?, ?, b.at, b.at, b.user_id, b.user_id FROM temp.import_batch AS b
              WHERE true ON CONFLICT (model_id, sku) DO NOTHING`,
        values: (rows, index) => [rows.ids[index], rows.data[index], rows.skus[index]],
        beforeBatch: (at) => {
          clear.run();
          fill.run(modelId, workspaceId, at, userId);
        },
      };
    },
  },
  {
    name: 'service schema, no FK, time and user bound once a row',
    setup(db) {
      serviceSchema(db);
      return {
        sql: `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by)
              SELECT ?, ?, ?, ?, ?, b.at, b.at, b.user_id, b.user_id FROM (SELECT ? AS at, ? AS user_id) AS b
              WHERE true ON CONFLICT (model_id, sku) DO NOTHING`,
        values: (rows, index, at) => [rows.ids[index], modelId, workspaceId, rows.data[index], rows.skus[index], at, userId],
      };
    },
  },
  {
    name: 'service schema, no FK, updated_at index without the id',
    setup(db) {
      serviceSchema(db, true);
      db.exec('CREATE INDEX records_model_updated ON records (model_id, updated_at)');
      return { sql: SERVICE_INSERT, values: serviceValues };
    },
  },
  {
    name: 'service schema (as the store)',
    foreignKeys: true,
    setup(db) {
      serviceSchema(db);
      return { sql: SERVICE_INSERT, values: serviceValues };
    },
  },
];

const args = new Args();
const rowCount = args.int('rows', 100_000);
const reps = args.int('reps', 5);
// --only 0,2: the variants by their place in the list.
const only = args.string('only', '');
const variants = only ? VARIANTS.filter((_, index) => only.split(',').includes(String(index))) : VARIANTS;
const rows = rawRows(productRows(skuPrefix(), 0, rowCount));
const warm = rawRows(productRows(`${skuPrefix()}-warm`, 0, 5000));
const times = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
const cpuTimes = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
const written = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));

/** Bytes this process has handed to write system calls so far (the WAL, and the database file by the checkpoints). */
function bytesWritten(): number {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);
}

/** Wall and CPU milliseconds (this process, all threads: the checkpoints too) and KiB written, per 1000 rows. */
async function measure(variant: Variant): Promise<{ ms: number; cpuMs: number; kib: number }> {
  const database = await createDatabase('sqlite');
  const db = new Database(database.location);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`foreign_keys = ${variant.foreignKeys ? 'ON' : 'OFF'}`);
    const { sql, values, beforeBatch } = variant.setup(db);
    const checkpoints = variant.inlineCheckpoints ? null : new BackgroundCheckpointer(db, database.location);
    const insert = db.prepare(sql);
    const batch = db.transaction((source: RawRows, start: number, end: number) => {
      const at = Date.now();
      beforeBatch?.(at);
      for (let index = start; index < end; index++) insert.run(...values(source, index, at));
    });
    const run = (source: RawRows) => {
      for (let start = 0; start < source.ids.length; start += 1000) {
        batch.immediate(source, start, Math.min(start + 1000, source.ids.length));
        checkpoints?.committed();
      }
    };
    run(warm);
    const cpuBefore = process.cpuUsage();
    const bytesBefore = bytesWritten();
    const started = performance.now();
    run(rows);
    const ms = performance.now() - started;
    await checkpoints?.stop();
    const cpu = process.cpuUsage(cpuBefore);
    const perThousand = 1000 / rowCount;
    return {
      ms: ms * perThousand,
      cpuMs: ((cpu.user + cpu.system) / 1000) * perThousand,
      kib: ((bytesWritten() - bytesBefore) / 1024) * perThousand,
    };
  } finally {
    db.close();
    await database.dispose();
  }
}

try {
  for (let rep = 0; rep < reps; rep++) {
    for (const variant of variants) {
      const { ms, cpuMs, kib } = await measure(variant);
      times.get(variant.name)!.push(ms);
      cpuTimes.get(variant.name)!.push(cpuMs);
      written.get(variant.name)!.push(kib);
    }
  }
  printTable(
    `Raw inserts of ${rowCount} rows, 1000 a transaction: ms per 1000 rows, median (min–max) of ${reps}`,
    ['schema', 'ms per 1000 rows', 'CPU ms per 1000 rows', 'KiB written per 1000 rows'],
    variants.map((variant) => [
      variant.name,
      fmtSpread(spread(times.get(variant.name)!), fmtMs),
      fmtSpread(spread(cpuTimes.get(variant.name)!), fmtMs),
      fmtInt(spread(written.get(variant.name)!).median),
    ]),
  );
} finally {
  await cleanupAll();
}
