import type Database from 'better-sqlite3';
import { definitionVersion, type ModelDefinition, type ProductSettings } from '../../domain/fields.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import type { NewRecord, RecordLink, RecordStore, Reference, ReplacementData, WriteContext } from '../store.js';
import { isLargeRecord } from '../../domain/size-limits.js';
import { isUniqueViolation } from './sql.js';
import { fromJson } from '../rows/json.js';
import { toRecord, type RecordRow } from '../rows/record-rows.js';
import { isoTime } from '../rows/time.js';
import { ChecksOutdated, modelGone, skuConflict } from '../conflicts.js';
import { WriteGroup } from './write-group.js';
import { BatchInsert } from './batch-insert.js';
import { FilterStatements } from './record-filter.js';
import { deletedRecordPayload, importPayload, recordPayload } from '../../domain/webhook-events.js';
import { SqliteOutbox } from './webhook-outbox.js';
import { SqliteRecordReads } from './record-reads.js';
import { SqliteHistoryWrites } from './record-history.js';
import { SqliteDraftWrites } from './draft-writes.js';
import { hasPublishedCopy } from '../core/publishing.js';
import { DEFAULT_HISTORY_KEEP, type ModifyOperation } from '../../domain/revisions.js';
import { nextRevision } from '../query/history-sql.js';
import { SqliteReferenceDrops } from './reference-drops.js';

export class SqliteRecordStore extends SqliteRecordReads implements RecordStore {
  private readonly insertRow: Database.Statement;
  private readonly insertLink: Database.Statement;
  private readonly addToCount: Database.Statement;
  private readonly moveContentVersion: Database.Statement;
  /** Models whose records the current write group modified: their content version moves once, at its commit. */
  private readonly modifiedModels = new Set<string>();
  private readonly markLarge: Database.Statement;
  private readonly selectDefinitionVersion: Database.Statement;
  /** A link's target: a record, or an asset (a media field's). */
  private readonly targetExists: Database.Statement;
  private readonly selectModelSlug: Database.Statement;
  private readonly batchInsert: BatchInsert;
  private readonly insertBatch: Database.Transaction<
    (context: WriteContext, records: NewRecord[]) => { skippedForSku: number[] }
  >;
  /** Single writes (insert, modify, delete) share commits with the other writes of their event-loop turn. */
  readonly writes: WriteGroup;
  /** What the writes of drafts models' records do to their states and published copies. */
  private readonly drafts: SqliteDraftWrites;
  /** A forced delete's removal of the deleted id from the records that hold it (also an asset's delete: assets.ts). */
  readonly referenceDrops: SqliteReferenceDrops;

  constructor(
    db: Database.Database,
    /** Called after each commit of record writes. */
    private readonly onCommit: () => void = () => {},
    filterStatements = new FilterStatements((sql) => db.prepare(sql)),
    /** Record writes add their webhook events here, in their own transaction. */
    private readonly outbox = new SqliteOutbox(db),
    private readonly history = new SqliteHistoryWrites(db, DEFAULT_HISTORY_KEEP),
  ) {
    super(db, filterStatements);
    this.drafts = new SqliteDraftWrites(db);
    this.insertRow = db.prepare(
      `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by,
         revision, revision_operation, publish_status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (model_id, sku) DO NOTHING`,
    );
    this.insertLink = db.prepare('INSERT OR IGNORE INTO record_links (target_id, source_id, field_key) VALUES (?, ?, ?)');
    // content_version (the delivery route's ETag) moves in the same statement as the count.
    this.addToCount = db.prepare(
      `UPDATE models SET record_count = record_count + ?, write_version = write_version + 1,
         content_version = content_version + 1 WHERE id = ?`,
    );
    this.moveContentVersion = db.prepare('UPDATE models SET content_version = content_version + 1 WHERE id = ?');
    this.markLarge = db.prepare('UPDATE models SET has_large_records = 1 WHERE id = ? AND has_large_records = 0');
    this.selectDefinitionVersion = db.prepare('SELECT updated_at FROM models WHERE id = ?').pluck(true);
    this.targetExists = db
      .prepare('SELECT 1 WHERE EXISTS (SELECT 1 FROM records WHERE id = ?) OR EXISTS (SELECT 1 FROM assets WHERE id = ?)')
      .pluck(true);
    this.selectModelSlug = db.prepare('SELECT slug AS webhook_model_slug FROM models WHERE id = ?');
    this.referenceDrops = new SqliteReferenceDrops(
      db,
      history,
      this.drafts,
      outbox,
      (modelId) => this.modelSlug(modelId),
      (modelId) => this.modifiedModels.add(modelId),
    );
    this.batchInsert = new BatchInsert(db);
    this.insertBatch = db.transaction((context: WriteContext, records: NewRecord[]) => this.importBatch(context, records));
    this.writes = new WriteGroup(db, {
      beforeCommit: () => this.moveModifiedModels(),
      onCommit: () => {
        onCommit();
        outbox.committed();
      },
    });
  }

  async insert(context: WriteContext, record: NewRecord): Promise<StoredRecord> {
    const now = await this.writes.run(() => {
      // The write waited for its group's turn: the model may have changed since its data was checked.
      this.refuseOutdatedDefinition(context.model);
      const at = Date.now();
      if (!this.insertOne(context, record, at)) throw skuConflict(context.model);
      this.addToCount.run(1, context.model.id);
      const { model } = context;
      this.outbox.add({
        workspaceId: model.workspaceId,
        type: 'record.created',
        modelId: model.id,
        at,
        details: () => {
          const time = isoTime(at);
          return { modelSlug: model.slug, payload: recordPayload(record.id, record.dataText, time, time) };
        },
      });
      return at;
    });
    const { model, userId } = context;
    const at = isoTime(now);
    return {
      id: record.id,
      modelId: model.id,
      workspaceId: model.workspaceId,
      data: record.data,
      createdAt: at,
      updatedAt: at,
      createdBy: userId,
      updatedBy: userId,
      revision: record.revision ?? 1,
      publishStatus: model.drafts ? 'draft' : null,
      publishedRevision: null,
      publishedAt: null,
    };
  }

  /**
   * One transaction for the batch (BEGIN IMMEDIATE: it holds the database's write lock from its start), its rows
   * in multi-row statements (batch-insert.ts). The foreign keys stay on: toggling PRAGMA foreign_keys expires every
   * prepared statement of the connection, and re-preparing them cost more than the per-row lookup of the model
   * saved.
   */
  async insertMany(context: WriteContext, records: NewRecord[]): Promise<{ skippedForSku: number[] }> {
    const result = this.outbox.transaction(() => this.insertBatch.immediate(context, records));
    this.onCommit();
    return result;
  }

  private importBatch(context: WriteContext, records: NewRecord[]): { skippedForSku: number[] } {
    if (records.length === 0) return { skippedForSku: [] };
    this.refuseOutdatedDefinition(context.model);
    const now = Date.now();
    const { model, userId } = context;
    const constants = { model: model.id, workspace: model.workspaceId, at: now, user: userId };
    const skippedForSku = this.batchInsert.insert(records, constants);
    if (model.drafts) this.drafts.markDrafts(records.map((record) => record.id));
    this.afterInsert(model.id, records, skippedForSku);
    const inserted = records.length - skippedForSku.length;
    if (inserted > 0) {
      this.addToCount.run(inserted, model.id);
      this.outbox.add({
        workspaceId: model.workspaceId,
        type: 'records.imported',
        modelId: model.id,
        at: now,
        details: () => {
          const skipped = new Set(skippedForSku);
          const ids = records.filter((_, index) => !skipped.has(index)).map((record) => record.id);
          return { modelSlug: model.slug, payload: importPayload(ids) };
        },
      });
    }
    return { skippedForSku };
  }

  /** The large-record mark and the relation links of the batch's inserted rows. */
  private afterInsert(modelId: string, records: readonly NewRecord[], skippedForSku: readonly number[]): void {
    const skipped = skippedForSku.length === 0 ? null : new Set(skippedForSku);
    let large = false;
    for (let index = 0; index < records.length; index++) {
      if (skipped?.has(index)) continue;
      const record = records[index]!;
      if (!large && isLargeRecord(record.dataText)) large = true;
      this.writeLinks(record.id, record.links);
    }
    if (large) this.markLarge.run(modelId);
  }

  private insertOne(context: WriteContext, record: NewRecord, now: number): boolean {
    const { model, userId } = context;
    const result = this.insertRow.run(
      record.id,
      model.id,
      model.workspaceId,
      record.dataText,
      record.sku,
      now,
      now,
      userId,
      userId,
      record.revision ?? 1,
      record.revision === undefined ? 'create' : 'restore',
      model.drafts ? 'draft' : null,
    );
    if (result.changes === 0) return false;
    if (isLargeRecord(record.dataText)) this.markLarge.run(model.id);
    this.writeLinks(record.id, record.links);
    return true;
  }

  /**
   * In the write's transaction, as its first statement: throws unless the model is still at the definition version the
   * data was checked against (modelGone when it was deleted). Synchronous, like a model update's checks and change:
   * no change of the definition can come between this and the write's commit.
   */
  private refuseOutdatedDefinition(model: ModelDefinition): void {
    const version = this.selectDefinitionVersion.get(model.id) as number | undefined;
    if (version === undefined) throw modelGone();
    if (version !== definitionVersion(model)) throw new ChecksOutdated();
  }

  /**
   * Each link's target (a record, or an asset) must exist (a delete may have come since it was checked): else nothing
   * is written.
   */
  private writeLinks(sourceId: string, links: RecordLink[]): void {
    for (const link of links) {
      if (this.targetExists.get(link.targetId, link.targetId) === undefined) throw new ChecksOutdated();
      this.insertLink.run(link.targetId, sourceId, link.fieldKey);
    }
  }

  async modify(
    workspaceId: string,
    id: string,
    userId: string | null,
    change: (current: StoredRecord, definitionVersion: number) => ReplacementData,
    operation: ModifyOperation = 'update',
  ): Promise<StoredRecord | null> {
    return this.writes.run((): StoredRecord | null => {
      const row = this.selectById.get(workspaceId, id) as RecordRow | undefined;
      if (!row) return null;
      const next = change(toRecord(row), this.selectDefinitionVersion.get(row.model_id) as number);
      const now = Math.max(Date.now(), Number(row.updated_at));
      const text = next.dataText;
      const revision = Number(row.revision) + 1;
      try {
        this.history.beforeChange(id, revision);
        this.db
          .prepare(`UPDATE records SET data = ?, sku = ?, updated_at = ?, updated_by = ?, ${nextRevision('?')} WHERE id = ?`)
          .run(text, next.sku, now, userId, operation, id);
      } catch (error) {
        if (isUniqueViolation(error)) throw skuConflict(this.productOf(row.model_id));
        throw error;
      }
      if (isLargeRecord(text)) this.markLarge.run(row.model_id);
      const publishStatus = this.drafts.statusAfterChange(id, row.publish_status ?? null, next.data);
      this.modifiedModels.add(row.model_id);
      this.db.prepare('DELETE FROM record_links WHERE source_id = ?').run(id);
      this.writeLinks(id, next.links);
      this.outbox.add({
        workspaceId,
        type: 'record.updated',
        modelId: row.model_id,
        at: now,
        details: () => ({
          modelSlug: this.modelSlug(row.model_id),
          payload: recordPayload(id, text, isoTime(row.created_at), isoTime(now)),
        }),
      });
      return toRecord({ ...row, data: text, updated_at: now, updated_by: userId, revision, publish_status: publishStatus });
    });
  }

  private modelSlug(modelId: string): string {
    return (this.selectModelSlug.get(modelId) as { webhook_model_slug: string }).webhook_model_slug;
  }

  /**
   * Moves the content version of the models the group's modifies wrote to, once per model and group rather than
   * once per write (a write rolled back after it was noted moves it needlessly, which is harmless).
   */
  private moveModifiedModels(): void {
    for (const modelId of this.modifiedModels) this.moveContentVersion.run(modelId);
    this.modifiedModels.clear();
  }

  private productOf(modelId: string): { product: ProductSettings | null } {
    const row = this.db.prepare('SELECT product FROM models WHERE id = ?').get(modelId) as { product: string | null };
    return { product: row.product === null ? null : fromJson<ProductSettings>(row.product) };
  }

  async referencesTo(id: string): Promise<Reference[]> {
    return this.selectReferences(id);
  }

  private selectReferences(id: string): Reference[] {
    const rows = this.db
      .prepare(
        `SELECT l.source_id, m.slug, l.field_key FROM record_links l
         JOIN records r ON r.id = l.source_id JOIN models m ON m.id = r.model_id
         WHERE l.target_id = ? AND l.source_id <> ? ORDER BY l.source_id, l.field_key`,
      )
      .all(id, id) as { source_id: string; slug: string; field_key: string }[];
    return rows.map((row) => ({ sourceId: row.source_id, modelSlug: row.slug, fieldKey: row.field_key }));
  }

  async delete(
    workspaceId: string,
    id: string,
    force: boolean,
    userId: string | null = null,
  ): Promise<'deleted' | 'not-found' | Reference[]> {
    return this.writes.run((): 'deleted' | 'not-found' | Reference[] => {
      const row = this.selectById.get(workspaceId, id) as RecordRow | undefined;
      if (!row) return 'not-found';
      const references = this.selectReferences(id);
      if (references.length > 0 && !force) return references;
      // One time for the delete and the records it changes: their events are due together, in sequence order.
      const now = Date.now();
      const changed = this.referenceDrops.drop(references, id, now);
      this.db.prepare('DELETE FROM record_links WHERE target_id = ? OR source_id = ?').run(id, id);
      this.history.beforeDelete(id, Number(row.revision), now, userId);
      this.db.prepare('DELETE FROM records WHERE id = ?').run(id);
      this.addToCount.run(-1, row.model_id);
      if (hasPublishedCopy(row.publish_status)) this.drafts.forget(id, row.model_id);
      this.outbox.add({
        workspaceId,
        type: 'record.deleted',
        modelId: row.model_id,
        at: now,
        details: () => ({ modelSlug: this.modelSlug(row.model_id), payload: deletedRecordPayload(id) }),
      });
      // The records whose references went are updated records, with the events a patch's would have.
      this.referenceDrops.announce(workspaceId, changed);
      return 'deleted';
    });
  }
}
