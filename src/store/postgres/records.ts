import { randomInt } from 'node:crypto';
import { forgetPublishedCopy, hasPublishedCopy, statusAfterChange } from './draft-writes.js';
import type { Pool, PoolClient } from 'pg';
import { definitionVersion, type ProductSettings } from '../../domain/fields.js';
import { isLargeRecord } from '../../domain/size-limits.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import type { NewRecord, RecordStore, Reference, ReplacementData, WriteContext } from '../store.js';
import { isDeadlock, isUniqueViolation, queryKeepingConnection, toNumber } from './sql.js';
import { isChecksOutdatedSignal } from './definition-lock.js';
import { toRecord, type RecordRow } from '../rows/record-rows.js';
import { skuConflict } from '../conflicts.js';
import { deletedRecordPayload, importPayload, recordPayload } from '../../domain/webhook-events.js';
import { COLUMNS, PostgresRecordReads } from './record-reads.js';
import {
  addCheckedToCount,
  addToCount,
  dropReference,
  INSERT_RECORD,
  lockRecordToWrite,
  outdatedOrGone,
  refusingGoneModel,
  selectReferences,
  writeLinks,
  writingRecords,
  type InsertedRow,
  type SourcedLink,
} from './record-writes.js';
import { PostgresOutbox, subscriptionsColumn, type WithSubscriptions } from './webhook-outbox.js';
import { newId } from '../../ids.js';
import { isoTime } from '../rows/time.js';
import { RecordStatistics } from './record-statistics.js';
import type { KeptReads } from '../kept/kept-reads.js';
import { PostgresHistoryWrites, UNLINK_DEFINITION, UNLINK_KEEP_DEFINITION } from './record-history.js';
import { DEFAULT_HISTORY_KEEP, type ModifyOperation } from '../../domain/revisions.js';
import { nextRevision } from '../query/history-sql.js';

/** Rows of content_counters per workspace: enough that concurrent patches seldom pick the same one. */
const CONTENT_COUNTER_SHARDS = 16;
const MARK_LARGE = 'UPDATE models SET has_large_records = true WHERE id = $1 AND NOT has_large_records';

export class PostgresRecordStore extends PostgresRecordReads implements RecordStore {
  constructor(
    pool: Pool,
    /** Record writes add their webhook events here, in their own transaction. */
    private readonly outbox = new PostgresOutbox(),
    /** Told of the records written, so that their statistics follow (record-statistics.ts). */
    private readonly statistics = new RecordStatistics(pool),
    /** Records a sole server keeps for readers that share them (kept-reads.ts; null: always read). */
    kept: KeptReads<StoredRecord | null> | null = null,
    private readonly history = new PostgresHistoryWrites(DEFAULT_HISTORY_KEEP),
  ) {
    super(pool, kept);
  }

  /**
   * One statement, committed on its own (INSERT_RECORD): the checks of the model's definition and the links' targets,
   * the record, its links, its event when a webhook wants it, and the model's count. One round trip where a
   * transaction took four to seven: on PostgreSQL a create's cost to this process is mostly its round trips.
   */
  async insert(context: WriteContext, record: NewRecord): Promise<StoredRecord> {
    const { model, userId } = context;
    const now = Date.now();
    let rows: InsertedRow[];
    try {
      ({ rows } = await refusingGoneModel(
        // Named: each connection parses the statement once, and PostgreSQL can keep its plan.
        queryKeepingConnection<InsertedRow>(this.pool, {
          name: 'record_insert',
          text: INSERT_RECORD,
          values: [
            record.id,
            model.id,
            model.workspaceId,
            record.dataText,
            record.sku,
            now,
            userId,
            isoTime(now),
            record.links.map((link) => link.targetId),
            record.links.map((link) => link.fieldKey),
            newId(),
            model.slug,
            isLargeRecord(record.dataText),
            definitionVersion(model),
            record.revision ?? 1,
            model.drafts,
          ],
        }),
      ));
    } catch (error) {
      // The statement wrote nothing: the definition moved, or PostgreSQL broke a deadlock with a model update that
      // rewrote a target; checked again.
      if (isChecksOutdatedSignal(error) || isDeadlock(error)) throw await outdatedOrGone(this.pool, model.id);
      throw error;
    }
    // No row: a link's target was deleted since the data was checked.
    if (!rows[0]) throw await outdatedOrGone(this.pool, model.id);
    const { subscribers, outdated: _outdated, ...insertedRow } = rows[0];
    if (insertedRow.id === null) throw skuConflict(model);
    this.outbox.committed(subscribers !== null && this.outbox.wakesFor(subscribers));
    this.statistics.wrote(1);
    return toRecord(insertedRow as RecordRow);
  }

  /**
   * One multi-row INSERT. Rows go in SKU order (then input order): concurrent imports take the unique-index
   * entries in one order and cannot deadlock on each other, and of two rows with one SKU the earlier in the
   * batch is inserted and the later skipped by ON CONFLICT DO NOTHING.
   */
  async insertMany(context: WriteContext, records: NewRecord[]): Promise<{ skippedForSku: number[] }> {
    if (records.length === 0) return { skippedForSku: [] };
    const { model, userId } = context;
    let wrote = false;
    const result = await writingRecords(this.pool, async (client) => {
      const now = Date.now();
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by,
           revision_operation, publish_status)
         SELECT r.id, $4, $5, r.data::jsonb, r.sku, $6, $6, $7, $7, 'import', CASE WHEN $8::boolean THEN 'draft' END
         FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS r (id, data, sku, position)
         ORDER BY r.sku, r.position
         ON CONFLICT (model_id, sku) DO NOTHING RETURNING id`,
        [
          records.map((record) => record.id),
          records.map((record) => record.dataText),
          records.map((record) => record.sku),
          model.id,
          model.workspaceId,
          now,
          userId,
          model.drafts,
        ],
      );
      const inserted = new Set(rows.map((row) => row.id));
      const skippedForSku: number[] = [];
      const links: SourcedLink[] = [];
      records.forEach((record, index) => {
        if (!inserted.has(record.id)) skippedForSku.push(index);
        else for (const link of record.links) links.push({ ...link, sourceId: record.id });
      });
      await writeLinks(client, links);
      if (records.some((record) => inserted.has(record.id) && isLargeRecord(record.dataText))) {
        await client.query(MARK_LARGE, [model.id]);
      }
      if (inserted.size > 0) {
        const subscriptions = await addCheckedToCount(client, model, inserted.size);
        const event = {
          workspaceId: model.workspaceId,
          type: 'records.imported' as const,
          modelId: model.id,
          modelSlug: model.slug,
          at: now,
          payload: () => importPayload(records.filter((record) => inserted.has(record.id)).map((record) => record.id)),
        };
        wrote = await this.outbox.add(client, event, subscriptions);
      }
      return { skippedForSku, inserted: inserted.size };
    });
    this.outbox.committed(wrote);
    this.statistics.wrote(result.inserted);
    return { skippedForSku: result.skippedForSku };
  }

  async modify(
    workspaceId: string,
    id: string,
    userId: string | null,
    change: (current: StoredRecord, definitionVersion: number) => ReplacementData,
    operation: ModifyOperation = 'update',
  ): Promise<StoredRecord | null> {
    let modelId: string | null = null;
    let wrote = false;
    try {
      const modified = await writingRecords(this.pool, async (client): Promise<StoredRecord | null> => {
        const row = await lockRecordToWrite(client, workspaceId, id, 'FOR NO KEY UPDATE');
        if (!row) return null;
        modelId = row.model_id;
        // A statement after the one that took the definition lock: it reads the definition as it is now, and keeps
        // the current revision in the history.
        const { rows: versions } = await client.query<{ updated_at: string }>(
          this.history.keep > 0 ? UNLINK_KEEP_DEFINITION : UNLINK_DEFINITION,
          [id, row.model_id],
        );
        const revision = Number(row.revision) + 1;
        await this.history.prune(client, id, revision);
        const next = change(toRecord(row), Number(versions[0]!.updated_at));
        await writeLinks(
          client,
          next.links.map((link) => ({ ...link, sourceId: id })),
        );
        if (isLargeRecord(next.dataText)) await client.query(MARK_LARGE, [row.model_id]);
        // The workspace's content version (the delivery route's ETag) moves in the same statement, no round trip
        // more: one of its content counters, picked at random, so that concurrent patches of one model do not wait
        // for each other on one counter row until they commit (as they would on the model's row).
        // The workspace's active webhooks come with the answer (subscriptionsColumn): no round trip more without them.
        const { rows } = await client.query<RecordRow & WithSubscriptions>(
          `WITH moved AS (
             INSERT INTO content_counters AS c (workspace_id, shard, changes) VALUES ($6, $7, 1)
             ON CONFLICT (workspace_id, shard) DO UPDATE SET changes = c.changes + 1
           )
           UPDATE records SET data = $1::jsonb, sku = $2, updated_at = GREATEST($3::bigint, updated_at), updated_by = $4,
             ${nextRevision('$8')}, ${statusAfterChange('$1', '$5')}
           WHERE id = $5 RETURNING ${COLUMNS}, ${subscriptionsColumn('$6')}`,
          [next.dataText, next.sku, Date.now(), userId, id, workspaceId, randomInt(CONTENT_COUNTER_SHARDS), operation],
        );
        const { webhook_subscriptions: subscriptions, ...updatedRow } = rows[0]!;
        const record = toRecord(updatedRow);
        wrote = await this.outbox.add(
          client,
          {
            workspaceId,
            type: 'record.updated',
            modelId: record.modelId,
            modelSlug: null,
            at: toNumber(updatedRow.updated_at),
            payload: () => recordPayload(record.id, JSON.stringify(record.data), record.createdAt, record.updatedAt),
          },
          subscriptions,
        );
        return record;
      });
      this.outbox.committed(wrote);
      return modified;
    } catch (error) {
      if (modelId !== null && isUniqueViolation(error, 'records_model_sku')) throw skuConflict(await this.productOf(modelId));
      throw error;
    }
  }

  private async productOf(modelId: string): Promise<{ product: ProductSettings | null }> {
    const { rows } = await this.pool.query<{ product: ProductSettings | null }>('SELECT product FROM models WHERE id = $1', [
      modelId,
    ]);
    return { product: rows[0]?.product ?? null };
  }

  async referencesTo(id: string): Promise<Reference[]> {
    return selectReferences(this.pool, id);
  }

  async delete(
    workspaceId: string,
    id: string,
    force: boolean,
    userId: string | null = null,
  ): Promise<'deleted' | 'not-found' | Reference[]> {
    let wrote = false;
    const outcome = await writingRecords(this.pool, async (client): Promise<'deleted' | 'not-found' | Reference[]> => {
      const row = await lockRecordToWrite(client, workspaceId, id, 'FOR UPDATE');
      if (!row) return 'not-found';
      const references = await selectReferences(client, id);
      if (references.length > 0 && !force) return references;
      // The records changed here are of the same workspace: addToCount below moves its content version for them.
      // One time for the delete and the records it changes: their events are due together, in sequence order.
      const now = Date.now();
      const changed = await this.dropReferences(client, references, id, now);
      await client.query('DELETE FROM record_links WHERE target_id = $1 OR source_id = $1', [id]);
      await this.history.beforeDelete(client, id, Number(row.revision), now, userId);
      await client.query('DELETE FROM records WHERE id = $1', [id]);
      if (hasPublishedCopy(row.publish_status)) await forgetPublishedCopy(client, id, row.model_id);
      const subscriptions = await addToCount(client, row.model_id, -1);
      const event = {
        workspaceId,
        type: 'record.deleted' as const,
        modelId: row.model_id,
        modelSlug: null,
        at: now,
        payload: () => deletedRecordPayload(id),
      };
      wrote = await this.outbox.add(client, event, subscriptions);
      // The records whose references went are updated records, with the events a patch's would have.
      wrote = (await this.announceChanged(client, workspaceId, changed, subscriptions)) || wrote;
      return 'deleted';
    });
    this.outbox.committed(wrote);
    return outcome;
  }

  /**
   * A forced delete's first step (of a record, or of an asset: assets.ts), in its transaction: removes `targetId`
   * from each record `references` names (dropReference); the records as they now are, one per record (a record
   * deleted meanwhile is left out). The caller moves the workspace's content version.
   */
  async dropReferences(
    client: PoolClient,
    references: readonly Reference[],
    targetId: string,
    now: number,
  ): Promise<StoredRecord[]> {
    const changed = new Map<string, StoredRecord>();
    for (const reference of references) {
      const source = await dropReference(client, reference, targetId, now, this.history);
      if (source) changed.set(reference.sourceId, source);
    }
    return [...changed.values()];
  }

  /** The `record.updated` events of the records dropReferences changed; true when the worker is to be woken. */
  async announceChanged(
    client: PoolClient,
    workspaceId: string,
    changed: readonly StoredRecord[],
    subscriptions: WithSubscriptions['webhook_subscriptions'],
  ): Promise<boolean> {
    let wrote = false;
    for (const source of changed) {
      const updated = {
        workspaceId,
        type: 'record.updated' as const,
        modelId: source.modelId,
        modelSlug: null,
        at: Date.parse(source.updatedAt),
        payload: () => recordPayload(source.id, JSON.stringify(source.data), source.createdAt, source.updatedAt),
      };
      wrote = (await this.outbox.add(client, updated, subscriptions)) || wrote;
    }
    return wrote;
  }
}
