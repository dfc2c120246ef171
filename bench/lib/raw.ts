/**
 * The database's own limit: the raw driver inserting the same rows into the same tables and indexes (created by
 * the service's own migrations, src/store/<dialect>/migrations.ts) and nothing else: no HTTP, no GraphQL, no
 * validation, no record counter. Ids are made before the clock starts.
 */
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { newId } from '../../src/ids.js';
import { BackgroundCheckpointer } from '../../src/store/sqlite/checkpointer.js';
import { migrate as migrateSqlite } from '../../src/store/sqlite/migrations.js';
import { migrate as migratePostgres } from '../../src/store/postgres/migrations.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import type { BenchDatabase } from './database.js';
import type { ProductRow } from './catalog.js';

export interface RawRows {
  ids: string[];
  data: string[];
  skus: string[];
}

/** The rows as the store writes them: a new time-ordered id, the data as JSON text, the SKU. */
export function rawRows(rows: ProductRow[]): RawRows {
  return { ids: rows.map(() => newId()), data: rows.map((row) => JSON.stringify(row)), skus: rows.map((row) => row.sku) };
}

export interface RawTarget {
  /** Inserts the rows as records of a new model `slug`, `batchSize` per transaction; the time of the inserts. */
  insert(slug: string, rows: RawRows, batchSize: number): Promise<{ ms: number }>;
  close(): Promise<void>;
}

const SQL = {
  org: 'INSERT INTO organisations (id, slug, created_at) VALUES ($1, $2, $3)',
  workspace: 'INSERT INTO workspaces (id, org_id, slug, created_at) VALUES ($1, $2, $3, $4)',
  model: `INSERT INTO models (id, workspace_id, slug, name, display_field, fields, product, delivery_access, created_at, updated_at)
          VALUES ($1, $2, $3, $4, 'title', '[]', '{"enabled":true,"skuField":"sku","priceField":"price"}', 'none', $5, $6)`,
};

/** `$n` placeholders (each used once, in order) to SQLite's `?`. */
function sqliteSql(sql: string): string {
  return sql.replace(/\$\d+/g, '?');
}

/**
 * SQLite: the store's connection settings (WAL, synchronous=NORMAL, foreign keys on, and WAL checkpoints on a
 * worker thread as the store makes them), one prepared INSERT run per row, one transaction per batch.
 */
export function openRawSqlite(database: BenchDatabase): RawTarget {
  const db = new Database(database.location);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrateSqlite(db);
  // As the store: WAL checkpoints on a worker thread (src/store/sqlite/checkpointer.ts).
  const checkpoints = new BackgroundCheckpointer(db, database.location);
  const orgId = newId();
  const workspaceId = newId();
  const userId = newId();
  db.prepare(sqliteSql(SQL.org)).run(orgId, 'bench', Date.now());
  db.prepare(sqliteSql(SQL.workspace)).run(workspaceId, orgId, 'main', Date.now());
  const insert = db.prepare(
    `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return {
    async insert(slug, rows, batchSize) {
      const modelId = newId();
      const now = Date.now();
      db.prepare(sqliteSql(SQL.model)).run(modelId, workspaceId, slug, slug, now, now);
      const insertBatch = db.transaction((start: number, end: number) => {
        const at = Date.now();
        for (let index = start; index < end; index++) {
          insert.run(rows.ids[index], modelId, workspaceId, rows.data[index], rows.skus[index], at, at, userId, userId);
        }
      });
      const started = performance.now();
      for (let start = 0; start < rows.ids.length; start += batchSize) {
        insertBatch.immediate(start, Math.min(start + batchSize, rows.ids.length));
        checkpoints.committed();
      }
      return { ms: performance.now() - started };
    },
    async close() {
      await checkpoints.stop();
      db.close();
    },
  };
}

/**
 * PostgreSQL: one connection, one `INSERT … SELECT FROM unnest(…)` statement (its own transaction) per batch,
 * as the store's import does.
 */
export async function openRawPostgres(database: BenchDatabase): Promise<RawTarget> {
  const options = parsePostgresUrl(database.url);
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 1 });
  await migratePostgres(pool, options.schema);
  const client = await pool.connect();
  const orgId = newId();
  const workspaceId = newId();
  const userId = newId();
  await client.query(SQL.org, [orgId, 'bench', Date.now()]);
  await client.query(SQL.workspace, [workspaceId, orgId, 'main', Date.now()]);
  const sql = `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by)
               SELECT r.id, $4, $5, r.data::jsonb, r.sku, $6, $6, $7, $7
               FROM unnest($1::text[], $2::text[], $3::text[]) AS r (id, data, sku)`;
  return {
    async insert(slug, rows, batchSize) {
      const modelId = newId();
      const now = Date.now();
      await client.query(SQL.model, [modelId, workspaceId, slug, slug, now, now]);
      const started = performance.now();
      for (let start = 0; start < rows.ids.length; start += batchSize) {
        const end = Math.min(start + batchSize, rows.ids.length);
        await client.query(sql, [
          rows.ids.slice(start, end),
          rows.data.slice(start, end),
          rows.skus.slice(start, end),
          modelId,
          workspaceId,
          Date.now(),
          userId,
        ]);
      }
      return { ms: performance.now() - started };
    },
    async close() {
      client.release();
      await pool.end();
    },
  };
}

export async function openRawTarget(database: BenchDatabase): Promise<RawTarget> {
  return database.kind === 'sqlite' ? openRawSqlite(database) : openRawPostgres(database);
}

/**
 * The smallest schema an import needs (issue 13): one table with the id as primary key, the data, the SKU with its
 * unique index per model, and the list index; no workspace, no user columns, no `updated_at` index, no foreign
 * keys, no link table, no models table, no record counter.
 */
const SMALLEST_SCHEMA = `
  CREATE TABLE records (
    id TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    data TEXT NOT NULL,
    sku TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX records_model_sku ON records (model_id, sku);
  CREATE INDEX records_model_created ON records (model_id, created_at, id);
`;

/**
 * Where the smallest-schema baseline's WAL checkpoints run: `worker`, as the store makes them (a worker thread with
 * its own connection, src/store/sqlite/checkpointer.ts), or `connection`, SQLite's default (automatic checkpoints
 * every 1000 WAL pages on the inserting connection, with their fsyncs), as a plain better-sqlite3 program has them.
 */
export type SmallestCheckpoints = 'worker' | 'connection';

/**
 * SQLite into the smallest schema: WAL, synchronous=NORMAL, checkpoints as `checkpointsOn` says, one prepared INSERT
 * run per row, one transaction per batch.
 */
export function openSmallestSqlite(database: BenchDatabase, checkpointsOn: SmallestCheckpoints = 'worker'): RawTarget {
  const db = new Database(database.location);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SMALLEST_SCHEMA);
  const checkpoints = checkpointsOn === 'worker' ? new BackgroundCheckpointer(db, database.location) : null;
  const insert = db.prepare('INSERT INTO records (id, model_id, data, sku, created_at) VALUES (?, ?, ?, ?, ?)');
  return {
    async insert(_slug, rows, batchSize) {
      const modelId = newId();
      const insertBatch = db.transaction((start: number, end: number) => {
        const at = Date.now();
        for (let index = start; index < end; index++) {
          insert.run(rows.ids[index], modelId, rows.data[index], rows.skus[index], at);
        }
      });
      const started = performance.now();
      for (let start = 0; start < rows.ids.length; start += batchSize) {
        insertBatch.immediate(start, Math.min(start + batchSize, rows.ids.length));
        checkpoints?.committed();
      }
      return { ms: performance.now() - started };
    },
    async close() {
      await checkpoints?.stop();
      db.close();
    },
  };
}

/** PostgreSQL into the smallest schema (made in the benchmark's own schema): one `INSERT … unnest` per batch. */
export async function openSmallestPostgres(database: BenchDatabase): Promise<RawTarget> {
  const options = parsePostgresUrl(database.url);
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 1 });
  const client = await pool.connect();
  const schema = `"${options.schema ?? 'public'}"`;
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await client.query(`SET search_path TO ${schema}`);
  await client.query(SMALLEST_SCHEMA.replace('data TEXT', 'data JSONB').replace(/INTEGER/g, 'BIGINT'));
  const sql = `INSERT INTO records (id, model_id, data, sku, created_at)
               SELECT r.id, $4, r.data::jsonb, r.sku, $5
               FROM unnest($1::text[], $2::text[], $3::text[]) AS r (id, data, sku)`;
  return {
    async insert(_slug, rows, batchSize) {
      const modelId = newId();
      const started = performance.now();
      for (let start = 0; start < rows.ids.length; start += batchSize) {
        const end = Math.min(start + batchSize, rows.ids.length);
        await client.query(sql, [
          rows.ids.slice(start, end),
          rows.data.slice(start, end),
          rows.skus.slice(start, end),
          modelId,
          Date.now(),
        ]);
      }
      return { ms: performance.now() - started };
    },
    async close() {
      client.release();
      await pool.end();
    },
  };
}

export async function openSmallestTarget(
  database: BenchDatabase,
  checkpoints: SmallestCheckpoints = 'worker',
): Promise<RawTarget> {
  return database.kind === 'sqlite' ? openSmallestSqlite(database, checkpoints) : openSmallestPostgres(database);
}
