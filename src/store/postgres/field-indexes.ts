import {
  fieldIndexes,
  indexChanges,
  INDEXED_TABLES,
  modelIndexPrefix,
  type FieldIndex,
  type IndexedModel,
} from '../query/field-indexes.js';
import type { RecordTable } from '../query/record-table.js';
import { indexedSql, literal } from './record-filter.js';
import { quoteIdentifier, type Queryable } from './sql.js';

async function indexNames(db: Queryable, modelId: string, table: RecordTable): Promise<string[]> {
  const prefix = modelIndexPrefix(modelId, table);
  const { rows } = await db.query<{ name: string }>(INDEX_NAMES, [prefix.length, prefix, table]);
  return rows.map((row) => row.name);
}

async function statisticsNames(db: Queryable, modelId: string, table: RecordTable): Promise<string[]> {
  const prefix = modelIndexPrefix(modelId, table);
  const { rows } = await db.query<{ name: string }>(STATISTICS_NAMES, [prefix.length, prefix]);
  return rows.map((row) => row.name);
}

const INDEX_NAMES = `SELECT indexname AS name FROM pg_indexes
  WHERE schemaname = current_schema() AND tablename = $3 AND left(indexname, $1) = $2`;
const STATISTICS_NAMES = `SELECT stxname AS name FROM pg_statistic_ext
  WHERE stxnamespace = current_schema()::regnamespace AND left(stxname, $1) = $2`;

/** Statistics on an expression (CREATE STATISTICS … ON (expr)) came with PostgreSQL 14. */
async function hasExpressionStatistics(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ version: number }>("SELECT current_setting('server_version_num')::integer AS version");
  return rows[0]!.version >= 140000;
}

/**
 * Makes the writes of model definitions in this schema one at a time; the first statement of their transactions.
 * They change indexes and statistics on `records`, whose table locks (taken after the row locks of an update or a
 * delete of records) deadlock when two such transactions interleave.
 */
export async function lockModelDefinitions(db: Queryable): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':model definitions'))");
}

/**
 * In a model update, after lockModelDefinitions and before the model's row: the table lock on `records` that
 * syncFieldIndexes will take, when it will drop an index (ACCESS EXCLUSIVE) or build one (SHARE). Record writes hold
 * their table lock from their first statement and then lock the model's row; an update that held the row first and
 * asked for the table then deadlocked with the writes queued for the row.
 */
export async function lockRecordsForIndexChanges(db: Queryable, modelId: string, model: IndexedModel): Promise<void> {
  for (const table of INDEXED_TABLES) {
    const indexes = indexChanges(await indexNames(db, modelId, table), fieldIndexes(modelId, model, table));
    if (indexes.drop.length > 0) await db.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    else if (indexes.build.length > 0) await db.query(`LOCK TABLE ${table} IN SHARE MODE`);
  }
}

/**
 * Builds and drops the model's field indexes so that they are exactly the ones its definition asks for; run inside
 * the transaction that writes the definition (CREATE INDEX holds off writes to records until it commits). An
 * index is partial, over the model's records only (other models' writes never touch it), on (value, created_at,
 * id): the value is the very expression the filters use (record-filter.ts), and created_at and id after it serve
 * a filtered page in creation order straight from the index.
 *
 * The planner takes no statistics from a partial index, and without them guesses that a range such as
 * `price > 100` keeps a third of the records (so it reads the model in creation order and filters). Each value
 * therefore gets a statistics object on its expression (same name as its index), and `analyze` fills them in at
 * once for a model that already holds records.
 *
 * `newModel`: the model is being created (its id is new), so it has no indexes or statistics yet: the catalog is
 * not asked for them, and they are all made in one round trip.
 */
export async function syncFieldIndexes(
  db: Queryable,
  modelId: string,
  model: IndexedModel | null,
  analyze = false,
  newModel = false,
): Promise<void> {
  if (newModel) {
    const statistics = await hasExpressionStatistics(db);
    // Nothing to drop, everything to build: one round trip (a simple query of several statements).
    const statements = INDEXED_TABLES.flatMap((table) => {
      const wanted = model ? fieldIndexes(modelId, model, table) : [];
      const indexes = wanted.map((index) => createIndexSql(modelId, index, table));
      return statistics ? [...indexes, ...wanted.map((index) => createStatisticsSql(index, table))] : indexes;
    });
    if (statements.length > 0) await db.query(statements.join(';\n'));
    return;
  }
  for (const table of INDEXED_TABLES)
    await syncTable(db, modelId, model ? fieldIndexes(modelId, model, table) : [], table, analyze);
}

async function syncTable(db: Queryable, modelId: string, wanted: FieldIndex[], table: RecordTable, analyze: boolean) {
  const indexes = indexChanges(await indexNames(db, modelId, table), wanted);
  for (const name of indexes.drop) await db.query(`DROP INDEX IF EXISTS ${quoteIdentifier(name)}`);
  for (const index of indexes.build) await db.query(createIndexSql(modelId, index, table));
  if (!(await hasExpressionStatistics(db))) return;
  const statistics = indexChanges(await statisticsNames(db, modelId, table), wanted);
  for (const name of statistics.drop) await db.query(`DROP STATISTICS IF EXISTS ${quoteIdentifier(name)}`);
  for (const index of statistics.build) await db.query(createStatisticsSql(index, table));
  if (analyze && statistics.build.length > 0) await db.query(`ANALYZE ${table}`);
}

function createStatisticsSql(index: FieldIndex, table: RecordTable): string {
  return `CREATE STATISTICS ${quoteIdentifier(index.name)} ON (${indexedSql(index.value)}) FROM ${table}`;
}

function createIndexSql(modelId: string, index: FieldIndex, table: RecordTable): string {
  return `CREATE INDEX ${quoteIdentifier(index.name)} ON ${table} (${indexedSql(index.value)}, created_at, id) WHERE model_id = ${literal(modelId)}`;
}
