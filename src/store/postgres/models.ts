import type { Pool, PoolClient } from 'pg';
import type { RecordStatistics } from './record-statistics.js';
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
import type { ModelChange, ModelStore } from '../store.js';
import { inTransaction, isDeadlock, isForeignKeyViolation, isUniqueViolation, type Queryable } from './sql.js';
import { definitionLockKey } from './definition-lock.js';
import { MODEL_COLUMNS, shapeColumns, toModel, type ModelRow } from '../rows/model-rows.js';
import { ChecksOutdated, skuFieldConflict, slugConflict } from '../conflicts.js';
import { storedValueConflict } from '../stored-value-checks.js';
import { lockModelDefinitions, lockRecordsForIndexChanges, syncFieldIndexes } from './field-indexes.js';
import { deletedModelPayload, modelPayload, type WebhookEventType } from '../../domain/webhook-events.js';
import type { PostgresOutbox } from './webhook-outbox.js';
import type { KeptReads } from '../kept/kept-reads.js';

/** What a sole server keeps of the model definitions. */
export interface KeptModels {
  byId: KeptReads<ModelDefinition>;
  lists: KeptReads<ModelDefinition[]>;
}

export class PostgresModelStore implements ModelStore {
  constructor(
    private readonly pool: Pool,
    /** Model writes add their webhook events here, in their own transaction. */
    private readonly outbox: PostgresOutbox,
    /** Definitions a sole server keeps (kept-reads.ts), by workspace and id, and by workspace; null: always read. */
    private readonly kept: KeptModels | null = null,
    /** Told of the published copies turning drafts on makes, so that their statistics follow (record-statistics.ts). */
    private readonly publishedStatistics: RecordStatistics | null = null,
  ) {}

  /** In the write's transaction: the event of the model as it is now; true when one was stored. */
  private async addEvent(client: PoolClient, type: WebhookEventType, model: ModelDefinition, at: number): Promise<boolean> {
    const event = {
      workspaceId: model.workspaceId,
      type,
      modelId: model.id,
      modelSlug: model.slug,
      at,
      payload: () => modelPayload(model),
    };
    return this.outbox.add(client, event, await this.outbox.subscriptions(client, model.workspaceId));
  }

  async list(workspaceId: string): Promise<ModelDefinition[]> {
    const read = async () => {
      const { rows } = await this.pool.query<ModelRow>('SELECT * FROM models WHERE workspace_id = $1 ORDER BY created_at, id', [
        workspaceId,
      ]);
      return rows.map(toModel);
    };
    return this.kept ? ((await this.kept.lists.copied(workspaceId, read)) ?? []) : read();
  }

  async get(workspaceId: string, id: string): Promise<ModelDefinition | null> {
    const read = () => selectModel(this.pool, workspaceId, id);
    return this.kept ? this.kept.byId.copied(`${workspaceId}\u0000${id}`, read) : read();
  }

  async getBySlug(workspaceId: string, slug: string): Promise<ModelDefinition | null> {
    const { rows } = await this.pool.query<ModelRow>('SELECT * FROM models WHERE workspace_id = $1 AND slug = $2', [
      workspaceId,
      slug,
    ]);
    return rows[0] ? toModel(rows[0]) : null;
  }

  async create(workspaceId: string, id: string, shape: ModelShape): Promise<ModelDefinition> {
    const now = Date.now();
    let wrote = false;
    try {
      const created = await inTransaction(this.pool, async (client) => {
        await lockModelDefinitions(client);
        const { rows } = await client.query<ModelRow>(
          `INSERT INTO models (id, workspace_id, slug, name, description, display_field, fields, product,
             delivery_access, icon, color, drafts, record_count, created_at, updated_at, content_version)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::int::boolean, 0, $13, $13, 1) RETURNING *`,
          [id, workspaceId, shape.slug, ...shapeColumns(shape), now],
        );
        await syncFieldIndexes(client, id, shape, false, true);
        const model = toModel(rows[0]!);
        wrote = await this.addEvent(client, 'model.created', model, now);
        return model;
      });
      this.outbox.committed(wrote);
      return created;
    } catch (error) {
      if (isUniqueViolation(error, 'models_workspace_slug')) throw slugConflict();
      throw error;
    }
  }

  async update(model: ModelDefinition, change: ModelChange): Promise<ModelDefinition> {
    const now = Date.now();
    let wrote = false;
    const updated = await changingDefinition(this.pool, async (client) => {
      await lockModelDefinitions(client);
      await lockRecordsForIndexChanges(client, model.id, change.shape);
      await lockForChange(client, model, change);
      // updated_at is the definition's version (definitionVersion): it moves forward with every change.
      await client.query(
        `UPDATE models SET name = $1, description = $2, display_field = $3, fields = $4, product = $5, delivery_access = $6,
           icon = $7, color = $8, drafts = $9::int::boolean, updated_at = GREATEST($10, updated_at + 1),
           content_version = content_version + 1
         WHERE id = $11`,
        [...shapeColumns(change.shape), now, model.id],
      );
      for (const key of change.removedFieldKeys) {
        for (const table of ['records', 'published_records'])
          await client.query(`UPDATE ${table} SET data = data - $1::text WHERE model_id = $2 AND data ? $1::text`, [
            key,
            model.id,
          ]);
        await client.query(
          'DELETE FROM record_links WHERE field_key = $1 AND source_id IN (SELECT id FROM records WHERE model_id = $2)',
          [key, model.id],
        );
        await client.query(dropPublishedFieldLinks('$1', '$2'), [key, model.id]);
      }
      if (change.skuFieldChanged) await recomputeSkus(client, model.id, change.skuFieldChanged.skuField);
      if (change.drafts) await changeDrafts(client, model.id, change.drafts, now);
      await syncFieldIndexes(client, model.id, change.shape, model.recordCount > 0);
      const after = (await selectModel(client, model.workspaceId, model.id)) as ModelDefinition;
      wrote = await this.addEvent(client, 'model.updated', after, now);
      return after;
    });
    this.outbox.committed(wrote);
    if (change.drafts === 'on') this.publishedStatistics?.wrote(updated.publishedCount);
    return updated;
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    // The model's content counter leaves the workspace's sum: the workspace's own counter moves instead.
    let wrote = false;
    const deleted = await inTransaction(this.pool, async (client) => {
      await lockModelDefinitions(client);
      // FOR UPDATE waits for the creates under way (each holds the row from its count's update) and then reads the
      // count they left. Creates after it wait for the delete, and then find no model (NOT_FOUND).
      const found = await client.query<{ slug: string; record_count: string }>(
        'SELECT slug, record_count FROM models WHERE workspace_id = $1 AND id = $2 FOR UPDATE',
        [workspaceId, id],
      );
      const slug = found.rows[0]?.slug;
      if (slug === undefined) return false;
      // Model updates that add a relation to it wait for lockModelDefinitions, as this delete did.
      const referencing = await client.query(
        'SELECT 1 FROM models WHERE workspace_id = $1 AND id <> $2 AND fields::jsonb @> $3::jsonb LIMIT 1',
        [workspaceId, id, JSON.stringify([{ relationTo: `model:${slug}` }])],
      );
      if (Number(found.rows[0]!.record_count) > 0 || referencing.rows.length > 0) throw new ChecksOutdated('id');
      try {
        await client.query('DELETE FROM models WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
      } catch (error) {
        // A record inserted without its count (never by the service): the delete is checked again.
        if (isForeignKeyViolation(error)) throw new ChecksOutdated('id');
        throw error;
      }
      await client.query('UPDATE workspaces SET content_version = content_version + 1 WHERE id = $1', [workspaceId]);
      await syncFieldIndexes(client, id, null);
      const event = {
        workspaceId,
        type: 'model.deleted' as const,
        modelId: id,
        modelSlug: slug,
        at: Date.now(),
        payload: () => deletedModelPayload(id, slug),
      };
      wrote = await this.outbox.add(client, event, await this.outbox.subscriptions(client, workspaceId));
      return true;
    });
    this.outbox.committed(wrote);
    return deleted;
  }

  async countRecordsWithValue(modelId: string, key: string): Promise<number> {
    return countWithValue(this.pool, modelId, key);
  }
}

/** A model update's transaction: one that PostgreSQL ended to break a deadlock wrote nothing, and is planned again. */
async function changingDefinition<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  try {
    return await inTransaction(pool, work);
  } catch (error) {
    if (isDeadlock(error)) throw new ChecksOutdated('id');
    throw error;
  }
}

async function countWithValue(db: Queryable, modelId: string, key: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT COUNT(*)::integer AS n FROM records WHERE model_id = $1 AND jsonb_typeof(data -> $2::text) <> 'null'",
    [modelId, key],
  );
  return rows[0]!.n;
}

/**
 * A model update's locks before it writes: the model's definition lock (exclusive), which a patch, record update or
 * delete of the model's records holds shared until it commits, then the model's row FOR UPDATE, which a create or
 * import holds (FOR NO KEY UPDATE) from when it adds to the model's count until it commits. So the update waits for
 * the record writes under way that would count, and the later ones wait for the update, then find the definition's
 * version moved and are checked again. Then, in the transaction and after the locks, the checks count every record
 * stored. Throws ChecksOutdated when the definition is no longer the version the change was planned against.
 */
async function lockForChange(client: PoolClient, model: ModelDefinition, change: ModelChange): Promise<void> {
  const { rows } = await client.query<{ updated_at: string; record_count: number }>(
    `WITH held AS MATERIALIZED (SELECT pg_advisory_xact_lock(${definitionLockKey('$2')}))
     SELECT m.updated_at, m.record_count FROM held, models m WHERE m.workspace_id = $1 AND m.id = $2 FOR UPDATE OF m`,
    [model.workspaceId, model.id],
  );
  const current = rows[0];
  if (!current || Number(current.updated_at) !== definitionVersion(model)) throw new ChecksOutdated('id');
  if (current.record_count === 0) return;
  for (const check of change.storedValueChecks ?? []) {
    const conflict = storedValueConflict(check, current.record_count, await countWithValue(client, model.id, check.fieldKey));
    if (conflict) throw conflict;
  }
}

const SELECT_MODEL_BY_ID = `SELECT ${MODEL_COLUMNS.join(', ')} FROM models WHERE workspace_id = $1 AND id = $2`;

async function selectModel(db: Queryable, workspaceId: string, id: string): Promise<ModelDefinition | null> {
  // Named (prepared once per connection): it runs before every filtered or field-sorted page. Its columns are listed:
  // a prepared `SELECT *` fails once a migration adds a column under a running server.
  const { rows } = await db.query<ModelRow>({ name: 'model_by_id', text: SELECT_MODEL_BY_ID, values: [workspaceId, id] });
  return rows[0] ? toModel(rows[0]) : null;
}

/** Drafts turned on: every record published as it is; off: refused unless every record is published as it is. */
async function changeDrafts(client: PoolClient, modelId: string, drafts: 'on' | 'off', now: number): Promise<void> {
  if (drafts === 'on') {
    const [copy, mark, count] = publishModelRecords('$1', '$2');
    await client.query(`WITH marked AS (${mark!}), counted AS (${count!}) ${copy!}`, [modelId, now]);
    await client.query(copyLinksToPublished('model_id = $1'), [modelId]);
    return;
  }
  const { rows } = await client.query<{ n: string }>(countUnpublished('$1'), [modelId]);
  const unpublished = Number(rows[0]!.n);
  if (unpublished > 0) throw draftsStillInUse(unpublished);
  await client.query(dropPublishedLinks('model_id = $1'), [modelId]);
  const [copies, states, count] = dropModelDrafts('$1');
  await client.query(`WITH copies AS (${copies!}), states AS (${states!}) ${count!}`, [modelId]);
}

/** Sets every record's sku from its string value under the new SKU field; CONFLICT when two records repeat one. */
async function recomputeSkus(client: PoolClient, modelId: string, skuField: string | null): Promise<void> {
  // Published copies first: their SKUs are not unique (only working copies' are), so this cannot fail.
  for (const table of ['published_records', 'records'])
    await client.query(`UPDATE ${table} SET sku = NULL WHERE model_id = $1`, [modelId]);
  if (skuField === null) return;
  await client.query(
    `UPDATE published_records SET sku = CASE WHEN jsonb_typeof(data -> $2::text) = 'string' THEN data ->> $2::text END
     WHERE model_id = $1`,
    [modelId, skuField],
  );
  try {
    await client.query(
      `UPDATE records SET sku = CASE WHEN jsonb_typeof(data -> $2::text) = 'string' THEN data ->> $2::text END
       WHERE model_id = $1`,
      [modelId, skuField],
    );
  } catch (error) {
    if (isUniqueViolation(error, 'records_model_sku')) throw skuFieldConflict(skuField);
    throw error;
  }
}
