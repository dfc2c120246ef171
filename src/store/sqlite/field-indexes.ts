import type Database from 'better-sqlite3';
import { fieldIndexes, indexChanges, INDEXED_TABLES, modelIndexPrefix, type IndexedModel } from '../query/field-indexes.js';
import type { RecordTable } from '../query/record-table.js';
import { modelCondition, valueSql } from './record-filter.js';

function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function modelIndexNames(db: Database.Database, modelId: string, table: RecordTable): string[] {
  const prefix = modelIndexPrefix(modelId, table);
  const rows = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND substr(name, 1, ?) = ?")
    .all(table, prefix.length, prefix) as { name: string }[];
  return rows.map((row) => row.name);
}

/**
 * Builds and drops the model's field indexes so that they are exactly the ones its definition asks for; run inside
 * the transaction that writes the definition. An index is partial, over the model's records only: other models'
 * writes never touch it. Its columns are (model_id, value, created_at, id): with model_id first the planner weighs
 * it like the table's own (model_id, …) indexes and picks it (without, it preferred those for ranges and sorts),
 * and created_at and id after the value serve a filtered page in creation order straight from the index.
 */
export function syncFieldIndexes(db: Database.Database, modelId: string, model: IndexedModel | null): void {
  for (const table of INDEXED_TABLES) {
    const wanted = model ? fieldIndexes(modelId, model, table) : [];
    const { drop, build } = indexChanges(modelIndexNames(db, modelId, table), wanted);
    for (const name of drop) db.exec(`DROP INDEX IF EXISTS ${quoteName(name)}`);
    for (const index of build) {
      db.exec(
        `CREATE INDEX ${quoteName(index.name)} ON ${table} (model_id, ${valueSql(index.value)}, created_at, id) WHERE ${modelCondition(modelId)}`,
      );
    }
  }
}
