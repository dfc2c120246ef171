import type { ModelDefinition } from '../../domain/fields.js';
import { fieldIndexes, indexChanges, modelIndexPrefix } from '../query/field-indexes.js';
import { indexedSql, literal } from './record-filter.js';
import { quoteIdentifier, type Queryable } from './sql.js';

async function modelIndexNames(db: Queryable, modelId: string): Promise<string[]> {
  const prefix = modelIndexPrefix(modelId);
  const { rows } = await db.query<{ name: string }>(
    `SELECT indexname AS name FROM pg_indexes
     WHERE schemaname = current_schema() AND tablename = 'records' AND left(indexname, $1) = $2`,
    [prefix.length, prefix],
  );
  return rows.map((row) => row.name);
}

/**
 * Builds and drops the model's field indexes so that they are exactly the ones its definition asks for; run inside
 * the transaction that writes the definition (CREATE INDEX holds off writes to records until it commits). An
 * index is partial, over the model's records only (other models' writes never touch it), on (value, created_at,
 * id): the value is the very expression the filters use (record-filter.ts), and created_at and id after it serve
 * a filtered page in creation order straight from the index.
 */
export async function syncFieldIndexes(
  db: Queryable,
  modelId: string,
  model: Pick<ModelDefinition, 'fields' | 'product'> | null,
): Promise<void> {
  const wanted = model ? fieldIndexes(modelId, model) : [];
  const { drop, build } = indexChanges(await modelIndexNames(db, modelId), wanted);
  for (const name of drop) await db.query(`DROP INDEX IF EXISTS ${quoteIdentifier(name)}`);
  for (const index of build) {
    await db.query(
      `CREATE INDEX ${quoteIdentifier(index.name)} ON records (${indexedSql(index.value)}, created_at, id) WHERE model_id = ${literal(modelId)}`,
    );
  }
}
