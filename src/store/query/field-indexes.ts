// The database indexes of `indexed: true` fields, named alike in both dialects. A name is made of the model id and
// the value's path and type (hashed: PostgreSQL names are at most 63 bytes, and a field key alone may be 64
// characters), so a model's indexes are found by their common prefix, and a field whose type changes gets a new
// index in place of the old one.
import { createHash } from 'node:crypto';
import type { ModelDefinition } from '../../domain/fields.js';
import { indexedValues, type DataValue } from '../../domain/record-paths.js';
import type { RecordTable } from './record-table.js';

export const INDEXED_TABLES: readonly RecordTable[] = ['records', 'published_records'];

export interface FieldIndex {
  name: string;
  value: DataValue;
}

/** Changes to the expressions behind the names go with a new version, so that stores rebuild their indexes. */
const EXPRESSION_VERSION = 'v1';

function hash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * What the names of a model's field indexes start with: `fx_<20 hex>_` on `records`, `fp_<20 hex>_` on
 * `published_records` (a drafts model's published copies, which the delivery route filters and sorts alike).
 */
export function modelIndexPrefix(modelId: string, table: RecordTable = 'records'): string {
  return `${table === 'records' ? 'fx' : 'fp'}_${hash(modelId, 20)}_`;
}

/** The model's definition as its indexes depend on it: its fields, its SKU field, and whether it has drafts. */
export type IndexedModel = Pick<ModelDefinition, 'fields' | 'product'> & { drafts?: boolean };

/**
 * The indexes a model's definition asks for on the table (`indexed` fields other than the SKU field and hasMany
 * relations; on `published_records` only for a model with drafts).
 */
export function fieldIndexes(modelId: string, model: IndexedModel, table: RecordTable = 'records'): FieldIndex[] {
  if (table === 'published_records' && model.drafts !== true) return [];
  const prefix = modelIndexPrefix(modelId, table);
  return indexedValues(model).map((value) => ({
    name: `${prefix}${hash(`${EXPRESSION_VERSION}|${value.type}|${value.keys.join('.')}`, 16)}`,
    value,
  }));
}

/** Which indexes to drop and which to build for a model to have exactly `wanted`, given the names it has. */
export function indexChanges(
  existing: readonly string[],
  wanted: readonly FieldIndex[],
): { drop: string[]; build: FieldIndex[] } {
  const wantedNames = new Set(wanted.map((index) => index.name));
  const existingNames = new Set(existing);
  return {
    drop: existing.filter((name) => !wantedNames.has(name)),
    build: wanted.filter((index) => !existingNames.has(index.name)),
  };
}
