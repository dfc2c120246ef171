// Record rows and the stored records made from them.
import type { RecordData } from '../../domain/fields.js';
import { defineLazyData } from '../../domain/json-text.js';
import type { PublishStatus, StoredRecord } from '../../domain/stored-record.js';
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
  publish_status?: string | null;
  published_revision?: number | string | null;
  published_at?: Millis | null;
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
      publishStatus: (row.publish_status ?? null) as PublishStatus | null,
      publishedRevision: nullableNumber(row.published_revision),
      publishedAt: row.published_at === null || row.published_at === undefined ? null : isoTime(row.published_at),
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
    row.publish_status,
    row.published_revision,
    row.published_at,
  );
}

function nullableNumber(value: number | string | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
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
  publishStatus?: string | null,
  publishedRevision?: number | string | null,
  publishedAt?: Millis | null,
): StoredRecord {
  const record = { id, modelId, workspaceId } as StoredRecord;
  defineLazyData(record, data);
  record.createdAt = isoTime(createdAt);
  record.updatedAt = isoTime(updatedAt);
  record.createdBy = createdBy;
  record.updatedBy = updatedBy;
  record.revision = Number(revision);
  record.publishStatus = (publishStatus ?? null) as PublishStatus | null;
  record.publishedRevision = nullableNumber(publishedRevision);
  record.publishedAt = publishedAt === null || publishedAt === undefined ? null : isoTime(publishedAt);
  return record;
}
