// Drafts and publishing (docs/lifecycle.md): publish and unpublish many records at once, all or nothing; discard a
// record's changes; read its published copy.
import { publishIds } from '../domain/drafts.js';
import { ServiceError } from '../domain/errors.js';
import { readData } from '../domain/record-shape.js';
import type { StoredRecord } from '../domain/stored-record.js';
import type { Store } from '../store/store.js';
import type { Actor } from './actor.js';
import type { RecordService } from './record-service.js';

export interface PublishResult {
  records: StoredRecord[];
  /** The ids the published copies' relation fields point at that the delivery route does not serve. */
  unpublishedTargets: string[];
}

export class PublishingService {
  constructor(
    private readonly store: Store,
    private readonly records: RecordService,
  ) {}

  async publish(actor: Actor, ids: readonly string[]): Promise<PublishResult> {
    const records = await this.change(actor, ids, 'publish');
    const unpublishedTargets = await this.store.publishing.unpublishedTargets(records.map((record) => record.id));
    return { records, unpublishedTargets };
  }

  async unpublish(actor: Actor, ids: readonly string[]): Promise<PublishResult> {
    return { records: await this.change(actor, ids, 'unpublish'), unpublishedTargets: [] };
  }

  /** The working copy made the published copy again, as a new revision (`discard`); CONFLICT when never published. */
  async discardChanges(actor: Actor, id: string): Promise<StoredRecord> {
    const current = await this.store.records.get(actor.workspaceId, id);
    if (!current) throw new ServiceError('NOT_FOUND', 'id: record not found', { field: 'id' });
    const published = await this.store.published.get(actor.workspaceId, id);
    if (!published) {
      throw new ServiceError(
        'CONFLICT',
        'id: the record has never been published (or was unpublished): there are no changes to discard',
        {
          field: 'id',
        },
      );
    }
    if (current.publishStatus === 'published') return current;
    return this.records.replaceWith(actor, current, readData(published), 'discard');
  }

  /** The record's published copy; null when it has none (a record of a model without drafts is its own). */
  async publishedCopy(workspaceId: string, id: string): Promise<StoredRecord | null> {
    const record = await this.store.records.get(workspaceId, id);
    if (!record) return null;
    if (record.publishStatus === null || record.publishStatus === undefined) return record;
    return this.store.published.get(workspaceId, id);
  }

  private async change(actor: Actor, ids: readonly string[], action: 'publish' | 'unpublish'): Promise<StoredRecord[]> {
    const unique = publishIds(ids);
    const outcome = await this.store.publishing[action](actor.workspaceId, unique);
    if ('missingAt' in outcome) {
      const position = ids.indexOf(unique[outcome.missingAt]!);
      throw new ServiceError('NOT_FOUND', `ids.${position}: record ${unique[outcome.missingAt]} not found`, {
        field: `ids.${position}`,
      });
    }
    return outcome.records;
  }
}
