// Publishing on SQLite (docs/lifecycle.md): one write of the write group, all of its records or none.
import type Database from 'better-sqlite3';
import type { StoredRecord } from '../../domain/stored-record.js';
import type { PublishingStore, PublishOutcome } from '../contract/publishing.js';
import { toRecord, type RecordRow } from '../rows/record-rows.js';
import {
  copyLinksToPublished,
  dropPublishedLinks,
  publishRecords,
  recordsToPublish,
  addToPublished,
  unservedTargets,
  unpublishRecords,
} from '../query/drafts-sql.js';
import type { WriteGroup } from './write-group.js';
import { publicationPayload, publishedCountChanges, type RecordToPublish } from '../core/publishing.js';
import type { SqliteOutbox } from './webhook-outbox.js';

const IDS = 'id IN (SELECT value FROM json_each(?))';
const SOURCES = `source_${IDS}`;

export class SqlitePublishing implements PublishingStore {
  private readonly selectToPublish: Database.Statement;
  private readonly publishSteps: Database.Statement[];
  private readonly unpublishSteps: Database.Statement[];
  private readonly addToCount: Database.Statement;
  private readonly selectRecords: Database.Statement;
  private readonly selectUnserved: Database.Statement;
  private readonly selectSlug: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly writes: WriteGroup,
    /** The events of the records published and unpublished, in the same transaction. */
    private readonly outbox: SqliteOutbox,
  ) {
    this.selectToPublish = db.prepare(recordsToPublish('?', IDS));
    this.publishSteps = [dropPublishedLinks(IDS), ...publishRecords(IDS, '?'), copyLinksToPublished(IDS)].map((sql) =>
      db.prepare(sql),
    );
    this.unpublishSteps = [dropPublishedLinks(IDS), ...unpublishRecords(IDS)].map((sql) => db.prepare(sql));
    this.addToCount = db.prepare(addToPublished('?', '?'));
    this.selectRecords = db.prepare(`SELECT * FROM records WHERE ${IDS}`);
    this.selectUnserved = db.prepare(unservedTargets(SOURCES)).pluck(true);
    this.selectSlug = db.prepare('SELECT slug FROM models WHERE id = ?').pluck(true);
  }

  publish(workspaceId: string, ids: readonly string[]): Promise<PublishOutcome> {
    return this.writes.run(() => this.applyNow(workspaceId, ids, 'publish'));
  }

  unpublish(workspaceId: string, ids: readonly string[]): Promise<PublishOutcome> {
    return this.writes.run(() => this.applyNow(workspaceId, ids, 'unpublish'));
  }

  private applySteps(action: 'publish' | 'unpublish', idsJson: string, at: number): void {
    if (action === 'unpublish') {
      for (const step of this.unpublishSteps) step.run(idsJson);
      return;
    }
    const [dropLinks, dropCopies, copy, mark, copyLinks] = this.publishSteps;
    dropLinks!.run(idsJson);
    dropCopies!.run(idsJson);
    copy!.run(at, idsJson);
    mark!.run(at, idsJson);
    copyLinks!.run(idsJson);
  }

  private modelSlug(modelId: string): string {
    return this.selectSlug.get(modelId) as string;
  }

  async unpublishedTargets(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return this.selectUnserved.all(JSON.stringify(ids)) as string[];
  }

  /**
   * Inside a write's transaction: checks that every id is a record of the workspace, then changes those of drafts
   * models (nothing when an id is missing), with their events.
   */
  applyNow(workspaceId: string, ids: readonly string[], action: 'publish' | 'unpublish'): PublishOutcome {
    const found = this.selectToPublish.all(workspaceId, JSON.stringify(ids)) as RecordToPublish[];
    const byId = new Map(found.map((row) => [row.id, row]));
    const missingAt = ids.findIndex((id) => !byId.has(id));
    if (missingAt !== -1) return { missingAt };
    const drafts = found.filter((row) => row.drafts);
    if (drafts.length > 0) {
      this.applySteps(action, JSON.stringify(drafts.map((row) => row.id)), Date.now());
      for (const [modelId, change] of publishedCountChanges(drafts, action)) this.addToCount.run(change, modelId);
    }
    const rows = this.selectRecords.all(JSON.stringify(ids)) as RecordRow[];
    const records = new Map(rows.map((row) => [row.id, toRecord(row)]));
    const at = Date.now();
    for (const draft of drafts) {
      const record = records.get(draft.id)!;
      this.outbox.add({
        workspaceId,
        type: action === 'publish' ? 'record.published' : 'record.unpublished',
        modelId: draft.model_id,
        at,
        details: () => ({ modelSlug: this.modelSlug(draft.model_id), payload: publicationPayload(action, record) }),
      });
    }
    return { records: ids.map((id) => records.get(id) as StoredRecord) };
  }
}
