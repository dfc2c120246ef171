// Record history (docs/lifecycle.md): revisions newest first, the JSON Patch between two, restore, and a record as it
// was at a time. The revisions themselves are kept by the store's record writes.
import { parseDateTime } from '../domain/date-time.js';
import { ServiceError } from '../domain/errors.js';
import { diffJson, type JsonPatchOperation } from '../domain/json-patch.js';
import { pageBounds } from '../domain/listing.js';
import type { RevisionPage } from '../domain/revisions.js';
import type { StoredRecord } from '../domain/stored-record.js';
import type { RecordRevision, Store } from '../store/store.js';
import type { Actor } from './actor.js';
import type { RecordService } from './record-service.js';

export class HistoryService {
  constructor(
    private readonly store: Store,
    private readonly records: RecordService,
  ) {}

  async history(workspaceId: string, id: string, args: { limit?: number | null; offset?: number | null }): Promise<RevisionPage> {
    const { limit, offset } = pageBounds(args);
    const page = await this.store.history.list(workspaceId, id, limit, offset);
    if (!page) throw recordNotFound();
    return { total: page.total, hasMore: offset + page.items.length < page.total, items: page.items };
  }

  /** The patch from revision `from` to `to` (default: the newest). */
  async diff(workspaceId: string, id: string, from: number, to?: number | null): Promise<JsonPatchOperation[]> {
    const older = await this.revision(workspaceId, id, from, 'from');
    const newer =
      to === undefined || to === null ? await this.newest(workspaceId, id) : await this.revision(workspaceId, id, to, 'to');
    return diffJson(older.data, newer.data);
  }

  /** Writes the revision's data as the record's next revision (bringing a deleted record back, with its id). */
  async restore(actor: Actor, id: string, revision: number): Promise<StoredRecord> {
    const kept = await this.revision(actor.workspaceId, id, revision, 'revision');
    const current = await this.store.records.get(actor.workspaceId, id);
    if (current) return this.records.replaceWith(actor, current, kept.data, 'restore');
    const newest = await this.newest(actor.workspaceId, id);
    return this.records.restoreDeleted(actor, id, kept.modelId, kept.data, newest.revision + 1);
  }

  /** The record as it was at `at` (an ISO 8601 date-time): null when it did not exist then, or was deleted. */
  async asOf(workspaceId: string, id: string, at: string): Promise<StoredRecord | null> {
    const time = parseDateTime(at);
    if (Number.isNaN(time)) {
      throw new ServiceError('BAD_USER_INPUT', `asOf: expected an ISO 8601 date-time, got "${at}"`, { field: 'asOf' });
    }
    return this.store.history.asOf(workspaceId, id, time);
  }

  private async revision(workspaceId: string, id: string, revision: number, field: string): Promise<RecordRevision> {
    const found = await this.store.history.get(workspaceId, id, revision);
    if (found) return found;
    await this.newest(workspaceId, id); // NOT_FOUND for the id first, when there is no such record at all
    throw new ServiceError('NOT_FOUND', `${field}: record ${id} has no revision ${revision}`, { field });
  }

  private async newest(workspaceId: string, id: string): Promise<RecordRevision> {
    const newest = await this.store.history.latest(workspaceId, id);
    if (newest) return newest;
    // None kept: the record may still exist, with its history off (--history-keep 0).
    if (this.store.history.keep === 0 && (await this.store.history.list(workspaceId, id, 1, 0))) {
      throw new ServiceError('NOT_FOUND', `id: record ${id} keeps no history (--history-keep 0)`, { field: 'id' });
    }
    throw recordNotFound();
  }
}

function recordNotFound(): ServiceError {
  return new ServiceError('NOT_FOUND', 'id: record not found', { field: 'id' });
}
