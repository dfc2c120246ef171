// The rules of publishing that both stores apply to the rows they locked (docs/lifecycle.md).
import { readData } from '../../domain/record-shape.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import { deletedRecordPayload, recordPayload } from '../../domain/webhook-events.js';

/** A record a publish or unpublish names, as its store read it under its lock. */
export interface RecordToPublish {
  id: string;
  model_id: string;
  publish_status: string | null;
  drafts: number | boolean;
}

/** Whether a record in this state has a published copy. */
export function hasPublishedCopy(status: string | null | undefined): boolean {
  return status === 'published' || status === 'changed';
}

/** How each model's count of published copies moves: a publish adds the records that had none, an unpublish removes those that had one. */
export function publishedCountChanges(records: readonly RecordToPublish[], action: 'publish' | 'unpublish'): Map<string, number> {
  const changes = new Map<string, number>();
  for (const record of records) {
    const hadCopy = hasPublishedCopy(record.publish_status);
    const change = action === 'publish' ? (hadCopy ? 0 : 1) : hadCopy ? -1 : 0;
    changes.set(record.model_id, (changes.get(record.model_id) ?? 0) + change);
  }
  return changes;
}

/** The body of a record.published event (the published copy) or a record.unpublished one (`{ "id" }`). */
export function publicationPayload(action: 'publish' | 'unpublish', record: StoredRecord): string {
  if (action === 'unpublish') return deletedRecordPayload(record.id);
  return recordPayload(record.id, JSON.stringify(readData(record)), record.createdAt, record.updatedAt);
}
