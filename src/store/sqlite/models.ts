import type Database from 'better-sqlite3';
import {
  copyLinksToPublished,
  countUnpublished,
  dropModelDrafts,
  dropPublishedFieldLinks,
  dropPublishedLinks,
  publishModelRecords,
} from '../query/drafts-sql.js';
import { draftsStillInUse } from '../../domain/drafts.js';
import { definitionVersion, type ModelDefinition } from '../../domain/fields.js';
import type { ModelShape } from '../../domain/model-definition.js';
import type { ModelChange, ModelStore, StoredValueCheck } from '../store.js';
import { isUniqueViolation, jsonPath, preparedOnce } from './sql.js';
import { shapeColumns, toModel, type ModelRow } from '../rows/model-rows.js';
import { ChecksOutdated, skuFieldConflict, slugConflict } from '../conflicts.js';
import { storedValueConflict } from '../stored-value-checks.js';
import { syncFieldIndexes } from './field-indexes.js';
import { OF_BOUND_MODEL } from './model-scope.js';
import { deletedModelPayload, modelPayload, type WebhookEventType } from '../../domain/webhook-events.js';
import type { SqliteOutbox } from './webhook-outbox.js';

export class SqliteModelStore implements ModelStore {
  private readonly prepare: (sql: string) => Database.Statement;

  constructor(
    private readonly db: Database.Database,
    /** Model writes add their webhook events here, in their own transaction. */
    private readonly outbox: SqliteOutbox,
  ) {
    this.prepare = preparedOnce(db);
  }

  /** Inside the write's transaction: the event of the model as it is now. */
  private addEvent(type: WebhookEventType, workspaceId: string, id: string, at: number): void {
    this.outbox.add({
      workspaceId,
      type,
      modelId: id,
      at,
      details: () => {
        const model = toModel(this.prepare('SELECT * FROM models WHERE id = ?').get(id) as ModelRow);
        return { modelSlug: model.slug, payload: modelPayload(model) };
      },
    });
  }

  async list(workspaceId: string): Promise<ModelDefinition[]> {
    const rows = this.prepare('SELECT * FROM models WHERE workspace_id = ? ORDER BY created_at, id').all(workspaceId);
    return (rows as ModelRow[]).map(toModel);
  }

  async get(workspaceId: string, id: string): Promise<ModelDefinition | null> {
    const row = this.prepare('SELECT * FROM models WHERE workspace_id = ? AND id = ?').get(workspaceId, id);
    return row ? toModel(row as ModelRow) : null;
  }

  async getBySlug(workspaceId: string, slug: string): Promise<ModelDefinition | null> {
    const row = this.prepare('SELECT * FROM models WHERE workspace_id = ? AND slug = ?').get(workspaceId, slug);
    return row ? toModel(row as ModelRow) : null;
  }

  async create(workspaceId: string, id: string, shape: ModelShape): Promise<ModelDefinition> {
    const now = Date.now();
    const run = this.db.transaction(() => {
      this.prepare(
        `INSERT INTO models (id, workspace_id, slug, name, description, display_field, fields, product,
             delivery_access, icon, color, drafts, record_count, created_at, updated_at, content_version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 1)`,
      ).run(id, workspaceId, shape.slug, ...shapeColumns(shape), now, now);
      syncFieldIndexes(this.db, id, shape);
      this.addEvent('model.created', workspaceId, id, now);
    });
    try {
      this.outbox.transaction(() => run.immediate());
    } catch (error) {
      if (isUniqueViolation(error)) throw slugConflict();
      throw error;
    }
    return (await this.get(workspaceId, id)) as ModelDefinition;
  }

  async update(model: ModelDefinition, change: ModelChange): Promise<ModelDefinition> {
    const now = Date.now();
    // Synchronous from the check of the version and of the stored records to the commit: a record write (its own
    // check of the version comes first in its transaction) is wholly before or wholly after.
    const run = this.db.transaction(() => {
      this.refuseChange(model, change.storedValueChecks ?? []);
      // updated_at is the definition's version (definitionVersion): it moves forward with every change.
      this.prepare(
        `UPDATE models SET name = ?, description = ?, display_field = ?, fields = ?, product = ?, delivery_access = ?,
           icon = ?, color = ?, drafts = ?, updated_at = max(?, updated_at + 1), content_version = content_version + 1 WHERE id = ?`,
      ).run(...shapeColumns(change.shape), now, model.id);
      if (change.drafts) this.changeDrafts(model, change.drafts, now);
      for (const key of change.removedFieldKeys) {
        for (const table of ['records', 'published_records'])
          this.prepare(
            `UPDATE ${table} SET data = json_remove(data, ?) WHERE ${OF_BOUND_MODEL} AND json_type(data, ?) IS NOT NULL`,
          ).run(jsonPath(key), model.id, jsonPath(key));
        this.prepare(
          `DELETE FROM record_links WHERE field_key = ? AND source_id IN (SELECT id FROM records WHERE ${OF_BOUND_MODEL})`,
        ).run(key, model.id);
        this.prepare(dropPublishedFieldLinks('?', '?')).run(key, model.id);
      }
      if (change.skuFieldChanged) this.recomputeSkus(model.id, change.skuFieldChanged.skuField);
      syncFieldIndexes(this.db, model.id, change.shape);
      this.addEvent('model.updated', model.workspaceId, model.id, now);
    });
    this.outbox.transaction(() => run.immediate());
    return (await this.get(model.workspaceId, model.id)) as ModelDefinition;
  }

  /** Drafts turned on: every record published as it is; off: refused unless every record is published as it is. */
  private changeDrafts(model: ModelDefinition, drafts: 'on' | 'off', now: number): void {
    if (drafts === 'on') {
      // Each statement names the time (when it has it) before the model.
      const [copy, mark, count] = publishModelRecords('?', '?');
      this.prepare(copy!).run(now, model.id);
      this.prepare(mark!).run(now, model.id);
      this.prepare(count!).run(model.id);
      this.prepare(copyLinksToPublished(OF_BOUND_MODEL)).run(model.id);
      return;
    }
    const unpublished = (this.prepare(countUnpublished('?')).get(model.id) as { n: number }).n;
    if (unpublished > 0) throw draftsStillInUse(unpublished);
    this.prepare(dropPublishedLinks(OF_BOUND_MODEL)).run(model.id);
    for (const sql of dropModelDrafts('?')) this.prepare(sql).run(model.id);
  }

  /** Throws unless the model is at the version the change was planned against and its stored records allow it. */
  private refuseChange(model: ModelDefinition, checks: StoredValueCheck[]): void {
    const current = this.prepare('SELECT updated_at, record_count FROM models WHERE id = ?').get(model.id) as
      { updated_at: number; record_count: number } | undefined;
    if (!current || current.updated_at !== definitionVersion(model)) throw new ChecksOutdated('id');
    if (current.record_count === 0) return;
    for (const check of checks) {
      const conflict = storedValueConflict(check, current.record_count, this.countWithValue(model.id, check.fieldKey));
      if (conflict) throw conflict;
    }
  }

  private recomputeSkus(modelId: string, skuField: string | null): void {
    // Published copies first: their SKUs are not unique (only working copies' are), so this cannot fail.
    for (const table of ['published_records', 'records'])
      this.prepare(`UPDATE ${table} SET sku = NULL WHERE ${OF_BOUND_MODEL}`).run(modelId);
    if (skuField === null) return;
    this.prepare(
      `UPDATE published_records SET sku = CASE WHEN json_type(data, ?) = 'text' THEN json_extract(data, ?) END WHERE ${OF_BOUND_MODEL}`,
    ).run(jsonPath(skuField), jsonPath(skuField), modelId);
    try {
      this.prepare(
        `UPDATE records SET sku = CASE WHEN json_type(data, ?) = 'text' THEN json_extract(data, ?) END WHERE ${OF_BOUND_MODEL}`,
      ).run(jsonPath(skuField), jsonPath(skuField), modelId);
    } catch (error) {
      if (isUniqueViolation(error)) throw skuFieldConflict(skuField);
      throw error;
    }
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const run = this.db.transaction(() => {
      const model = this.prepare('SELECT slug, record_count FROM models WHERE workspace_id = ? AND id = ?').get(
        workspaceId,
        id,
      ) as { slug: string; record_count: number } | undefined;
      if (!model) return false;
      // Checked again here, in the write's transaction: a create or a model update may have come after the service's check.
      const referencing = this.prepare(
        `SELECT 1 FROM models WHERE workspace_id = ? AND id <> ?
           AND EXISTS (SELECT 1 FROM json_each(fields) WHERE json_extract(value, '$.relationTo') = ?) LIMIT 1`,
      ).get(workspaceId, id, `model:${model.slug}`);
      if (model.record_count > 0 || referencing !== undefined) throw new ChecksOutdated('id');
      const deleted = this.prepare('DELETE FROM models WHERE workspace_id = ? AND id = ?').run(workspaceId, id).changes > 0;
      if (deleted) {
        this.outbox.add({
          workspaceId,
          type: 'model.deleted',
          modelId: id,
          at: Date.now(),
          details: () => ({ modelSlug: model.slug, payload: deletedModelPayload(id, model.slug) }),
        });
        // The model's content counter leaves the workspace's sum: the workspace's own counter moves instead.
        this.prepare('UPDATE workspaces SET content_version = content_version + 1 WHERE id = ?').run(workspaceId);
        syncFieldIndexes(this.db, id, null);
      }
      return deleted;
    });
    const deleted = this.outbox.transaction(() => run.immediate());
    return deleted;
  }

  async countRecordsWithValue(modelId: string, key: string): Promise<number> {
    return this.countWithValue(modelId, key);
  }

  private countWithValue(modelId: string, key: string): number {
    const row = this.prepare(
      `SELECT COUNT(*) AS n FROM records WHERE ${OF_BOUND_MODEL} AND json_type(data, ?) NOT IN ('null')`,
    ).get(modelId, jsonPath(key)) as { n: number };
    return row.n;
  }
}
