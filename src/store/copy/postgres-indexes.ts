// A PostgreSQL target's indexes around the bulk load: which are dropped before it and built after it, and which
// field indexes are made before the records so that the load keeps them up.
//
// A field index is partial (over one model's records), but building one reads the whole records table: after the
// load, a store of many models paid one full scan per indexed field of each model (24 models with two indexed fields
// each: 48 scans, 2.2 s of the 3.5 s a 60,000-record copy took). Kept up during the load, an index costs each row
// of its model an insert and every other row only the check of its predicate (`model_id = '…'`). So the field
// indexes of a model that holds a small share of the records are made before the load, and only those of the models
// that hold most of them are built after it, in one pass each.
import type pg from 'pg';
import { syncFieldIndexes } from '../postgres/field-indexes.js';
import { quoteIdentifier } from '../postgres/sql.js';
import { definitionOf } from './sqlite-side.js';
import type { ModelIndexSource, Row } from './side.js';
import { DEFERRED_INDEXES_TABLE } from './tables.js';
import { closeClients, connectClients } from './postgres-clients.js';

/**
 * A model whose records are fewer than this share of all has its field indexes made before the load. Measured on
 * PostgreSQL 15, 2 cores: rebuilding one partial index over 60,000 records of 600 bytes took 30 ms (0.5 µs per row of
 * the whole table); the same rows inserted into a table with 48 such indexes took 250 ms more than into one without
 * (one insert per row into its model's indexes, and the 48 predicates checked). For a model with a small share of the
 * rows, keeping up is the cheaper by far; for one with most of them, one build after the load (beside the others, on
 * two connections) is. 1,000,000 records in 24 models (48 field indexes): the whole copy 39.8 s → 32.4 s, its index
 * phase 15.5 s → 6.7 s, its rows 23.6 s → 25.0 s.
 */
export const EARLY_INDEX_SHARE = 0.2;

/** The names of the service's field indexes (src/store/query/field-indexes.ts: `fx_<model hash>_<value hash>`). */
export const FIELD_INDEX_PREFIX = 'fx_';

/** The models whose field indexes are made before a load of `totalRecords` records (see EARLY_INDEX_SHARE). */
export function modelsIndexedBeforeLoad(models: readonly ModelIndexSource[], totalRecords: number): ModelIndexSource[] {
  return models.filter((model) => model.records < totalRecords * EARLY_INDEX_SHARE);
}

/** Before the records' load: the field indexes (and their statistics) of the models that hold few of them. */
export async function fieldIndexesBeforeLoad(
  client: pg.Client,
  models: readonly ModelIndexSource[],
  totalRecords: number,
): Promise<void> {
  for (const model of modelsIndexedBeforeLoad(models, totalRecords)) {
    await syncFieldIndexes(client, model.id, definitionOf(model));
  }
}

type Query = (sql: string, values?: unknown[]) => Promise<Row[]>;

/**
 * Before a bulk load of `table`: its foreign keys and the indexes that no constraint stands on are dropped, their
 * definitions kept in DEFERRED_INDEXES_TABLE (buildIndexes makes them again). Not the field indexes: those there are
 * ones fieldIndexesBeforeLoad chose to keep up (a resumed copy), and buildIndexes makes the others.
 */
export async function deferIndexes(client: pg.Client, query: Query, table: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS ${DEFERRED_INDEXES_TABLE} (name text PRIMARY KEY, definition text NOT NULL)`);
    const name = quoteIdentifier(table);
    // Its foreign keys too: checked row by row (a query each) while loading, at once (one join) when made again.
    const foreignKeys = await query(
      "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype = 'f' ORDER BY conname",
      [name],
    );
    // The indexes that no constraint stands on (the primary key's, a UNIQUE constraint's, a foreign key's referenced key).
    const indexes = await query(
      `SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
       WHERE x.indrelid = to_regclass($1) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
         AND left(i.relname, $2) <> $3
       ORDER BY i.relname`,
      [name, FIELD_INDEX_PREFIX.length, FIELD_INDEX_PREFIX],
    );
    const save = `INSERT INTO ${DEFERRED_INDEXES_TABLE} (name, definition) VALUES ($1, $2)`;
    for (const [constraint, definition] of foreignKeys) {
      const quoted = quoteIdentifier(String(constraint));
      await client.query(save, [
        `${table}.${String(constraint)}`,
        `ALTER TABLE ${name} ADD CONSTRAINT ${quoted} ${String(definition)}`,
      ]);
      await client.query(`ALTER TABLE ${name} DROP CONSTRAINT ${quoted}`);
    }
    for (const [index, definition] of indexes) {
      await client.query(save, [String(index), definition]);
      await client.query(`DROP INDEX ${quoteIdentifier(String(index))}`);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** Connections that build indexes at once. */
const INDEX_CONNECTIONS = 2;

/** A session for one job of the copy's end: its own connection, closed after. */
async function withClients<T>(
  connectionString: string,
  count: number,
  setup: readonly string[],
  work: (clients: pg.Client[]) => Promise<T>,
): Promise<T> {
  const clients = await connectClients(connectionString, count, setup);
  try {
    return await work(clients);
  } finally {
    await closeClients(clients);
  }
}

/** Runs the jobs on the clients, each client taking the next job when its last is done. */
async function runOn<T>(
  clients: readonly pg.Client[],
  jobs: readonly T[],
  run: (client: pg.Client, job: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < jobs.length) await run(client, jobs[next++]!);
    }),
  );
}

/**
 * The indexes that deferIndexes dropped and the models' field indexes, several at a time on connections of their
 * own (CREATE INDEX locks out writes, not other index builds); then the foreign keys (their check locks out index
 * builds, so they come after) and ANALYZE.
 */
export async function buildIndexes(
  client: pg.Client,
  connectionString: string,
  models: readonly ModelIndexSource[],
): Promise<void> {
  const exists = await client.query({
    text: 'SELECT (to_regclass($1) IS NOT NULL)::integer',
    values: [DEFERRED_INDEXES_TABLE],
    rowMode: 'array',
  });
  const deferred: { name: string; definition: string }[] =
    exists.rows[0]![0] === 1
      ? (
          await client.query<{ name: string; definition: string }>(
            `SELECT name, definition FROM ${DEFERRED_INDEXES_TABLE} ORDER BY name`,
          )
        ).rows
      : [];
  const constraints = deferred.filter((index) => index.definition.startsWith('ALTER TABLE'));
  type Job = { kind: 'deferred'; name: string; definition: string } | { kind: 'field'; model: ModelIndexSource };
  const jobs: Job[] = [
    ...deferred.filter((index) => !constraints.includes(index)).map((index) => ({ kind: 'deferred' as const, ...index })),
    ...models.map((model) => ({ kind: 'field' as const, model })),
  ];
  const restore = async (on: pg.Client, index: { name: string; definition: string }) => {
    await on.query('BEGIN');
    try {
      // A field index that a stopped copy of an earlier version deferred may have been made since (before the load).
      const made = await on.query({ text: 'SELECT to_regclass($1) IS NOT NULL AS made', values: [quoteIdentifier(index.name)] });
      if (!(made.rows[0] as { made: boolean }).made) await on.query(index.definition);
      await on.query(`DELETE FROM ${DEFERRED_INDEXES_TABLE} WHERE name = $1`, [index.name]);
      await on.query('COMMIT');
    } catch (error) {
      await on.query('ROLLBACK').catch(() => {});
      throw error;
    }
  };
  await withClients(connectionString, INDEX_CONNECTIONS, ["SET maintenance_work_mem = '256MB'"], (clients) =>
    runOn(clients, jobs, async (on, job) => {
      if (job.kind === 'deferred') await restore(on, job);
      else await syncFieldIndexes(on, job.model.id, definitionOf(job.model));
    }),
  );
  for (const constraint of constraints) await restore(client, constraint);
  if (exists.rows[0]![0] === 1) await client.query(`DROP TABLE ${DEFERRED_INDEXES_TABLE}`);
  await client.query('ANALYZE records');
}
