// The reference of bench/copy.ts: PostgreSQL's own bulk path over the same rows, with the raw drivers. The records
// and record links of the SQLite source, read by better-sqlite3 and written by COPY FROM STDIN (the pg client, COPY's
// text form, 10,000 rows a statement, two statements in flight) into scratch tables of the same columns with only
// their primary key, in a schema of their own. No checksums, no other tables, no index builds after: what the
// database takes at best, for the copy's figure to be read against.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { CopyChain, copyIn, copyText } from '../../src/store/copy/postgres-copy-in.js';
import type { Row } from '../../src/store/copy/side.js';

const ROWS_PER_COPY = 10_000;
const IN_FLIGHT = 2;

export interface ReferenceResult {
  records: number;
  links: number;
  seconds: number;
}

const TABLES = [
  {
    name: 'records',
    ddl: `id text COLLATE "C" PRIMARY KEY, model_id text COLLATE "C" NOT NULL, workspace_id text COLLATE "C" NOT NULL,
          data jsonb NOT NULL, sku text, created_at bigint NOT NULL, updated_at bigint NOT NULL, created_by text, updated_by text`,
    columns: 'id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by',
  },
  {
    name: 'record_links',
    ddl: `target_id text COLLATE "C" NOT NULL, source_id text COLLATE "C" NOT NULL, field_key text COLLATE "C" NOT NULL,
          PRIMARY KEY (target_id, source_id, field_key)`,
    columns: 'target_id, source_id, field_key',
  },
];

/** COPYs the source's records and links into a scratch schema (dropped after); the wall time of the loads. */
export async function referenceCopy(sourcePath: string, connectionString: string): Promise<ReferenceResult> {
  const schema = `cs_bench_ref_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString });
  await client.connect();
  const db = new Database(sourcePath, { readonly: true });
  try {
    await client.query(`CREATE SCHEMA ${schema}; SET search_path = ${schema}; SET synchronous_commit = off`);
    for (const table of TABLES) await client.query(`CREATE TABLE ${table.name} (${table.ddl})`);
    const counts: number[] = [];
    const started = performance.now();
    for (const table of TABLES) {
      const rows = db.prepare(`SELECT ${table.columns} FROM ${table.name}`).raw(true);
      counts.push(await copyAll(client, `COPY ${table.name} (${table.columns}) FROM STDIN`, rows.iterate() as Iterable<Row>));
    }
    const seconds = (performance.now() - started) / 1000;
    return { records: counts[0]!, links: counts[1]!, seconds };
  } finally {
    db.close();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await client.end();
  }
}

async function copyAll(client: pg.Client, statement: string, rows: Iterable<Row>): Promise<number> {
  const chain = new CopyChain();
  const pending: Promise<void>[] = [];
  let batch: Row[] = [];
  let count = 0;
  const send = async () => {
    const writing = copyIn(client, statement, copyText(batch), chain);
    writing.catch(() => {});
    pending.push(writing);
    count += batch.length;
    batch = [];
    if (pending.length >= IN_FLIGHT) await pending.shift();
  };
  for (const row of rows) {
    batch.push(row);
    if (batch.length === ROWS_PER_COPY) await send();
  }
  if (batch.length > 0) await send();
  await Promise.all(pending);
  return count;
}
