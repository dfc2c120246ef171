// Record rows and the stored records made from them.
import type { RecordData } from '../../domain/fields.js';
import { defineLazyData } from '../../domain/json-text.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import type { Json } from './json.js';
import { isoTime, type Millis } from './time.js';

export interface RecordRow {
  id: string;
  model_id: string;
  workspace_id: string;
  data: Json<RecordData>;
  created_at: Millis;
  updated_at: Millis;
  created_by: string | null;
  updated_by: string | null;
  revision: number | string;
}

/**
 * A stored record from its row. JSON text (SQLite) is parsed only when `data` is read: an answer that selects
 * `data` writes the text out as it is (see json-text.ts).
 */
export function toRecord(row: RecordRow): StoredRecord {
  if (typeof row.data !== 'string') {
    return {
      id: row.id,
      modelId: row.model_id,
      workspaceId: row.workspace_id,
      data: row.data,
      createdAt: isoTime(row.created_at),
      updatedAt: isoTime(row.updated_at),
      createdBy: row.created_by,
      updatedBy: row.updated_by,
      revision: Number(row.revision),
    };
  }
  return recordWithText(
    row.id,
    row.model_id,
    row.workspace_id,
    row.data,
    row.created_at,
    row.updated_at,
    row.created_by,
    row.updated_by,
    row.revision,
  );
}

/** A record whose `data` is the JSON text, parsed on first read; the keys in the order of StoredRecord. */
export function recordWithText(
  id: string,
  modelId: string,
  workspaceId: string,
  data: string,
  createdAt: Millis,
  updatedAt: Millis,
  createdBy: string | null,
  updatedBy: string | null,
  revision: number | string,
): StoredRecord {
  const record = { id, modelId, workspaceId } as StoredRecord;
  defineLazyData(record, data);
  record.createdAt = isoTime(createdAt);
  record.updatedAt = isoTime(updatedAt);
  record.createdBy = createdBy;
  record.updatedBy = updatedBy;
  record.revision = Number(revision);
  return record;
}
