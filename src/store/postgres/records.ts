import { randomInt } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { definitionVersion, type FieldDefinition, type ProductSettings, type RecordData } from '../../domain/fields.js';
import type { FilterNode } from '../../domain/filter.js';
import type { ListWindow, RecordQuery } from '../../domain/listing.js';
import { withoutReference } from '../../domain/relations.js';
import { isLargeRecord, pageTooLargeError } from '../../domain/size-limits.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import type {
  ModelKey,
  ModelPage,
  ManyReading,
  NewRecord,
  PageCursor,
  RecordLink,
  RecordStore,
  Reference,
  PageReading,
  ReplacementData,
  WriteContext,
} from '../store.js';
import { FULL_PAGE } from '../store.js';
import {
  inTransaction,
  isDeadlock,
  isForeignKeyViolation,
  isUniqueViolation,
  queryKeepingConnection,
  TEXT_VALUES,
  toNumber,
  type Queryable,
} from './sql.js';
import { definitionLockKey, isChecksOutdatedSignal } from './definition-lock.js';
import { afterCursor, ORDER_BY } from '../rows/record-order.js';
import { toRecord, type RecordRow } from '../rows/record-rows.js';
import { selectModelPage } from './model-page.js';
import { ChecksOutdated, modelGone, skuConflict } from '../conflicts.js';
import type { ServiceError } from '../../domain/errors.js';
import { ALL_EVENTS, deletedRecordPayload, importPayload, recordPayload } from '../../domain/webhook-events.js';
import { OUTBOX_LOCK_KEY, PostgresOutbox, subscriptionsColumn, type WithSubscriptions } from './webhook-outbox.js';
import { newId } from '../../ids.js';
import { isoTime } from '../rows/time.js';
import { CountCache } from './count-cache.js';
import { RecordStatistics } from './record-statistics.js';
import { findRows, PostgresFilteredQuery } from './record-filter.js';
import type { KeptReads } from './kept-reads.js';
import { foundOrNone, splitByKept } from '../query/kept-by-id.js';

const COLUMN_LIST = ['id', 'model_id', 'workspace_id', 'data', 'created_at', 'updated_at', 'created_by', 'updated_by'] as const;
const COLUMNS = COLUMN_LIST.join(', ');
const COLUMN_LIST_WITHOUT_DATA = COLUMN_LIST.map((column) => (column === 'data' ? "'{}'::jsonb AS data" : column));
const COLUMNS_WITHOUT_DATA = COLUMN_LIST_WITHOUT_DATA.join(', ');
/** Rows of content_counters per workspace: enough that concurrent patches seldom pick the same one. */
const CONTENT_COUNTER_SHARDS = 16;
const MARK_LARGE = 'UPDATE models SET has_large_records = true WHERE id = $1 AND NOT has_large_records';

/** The write's outcome; a model deleted meanwhile (the records' foreign key) is NOT_FOUND. */
async function refusingGoneModel<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isForeignKeyViolation(error)) throw modelGone();
    throw error;
  }
}

/**
 * A created record's row, with the ids of the webhooks that took its event (null: none); the record's columns are
 * null when its SKU was taken.
 */
type InsertedRow = { [Column in keyof RecordRow]: RecordRow[Column] | null } & {
  subscribers: { id: string }[] | null;
  outdated: null;
};

/**
 * A create as one statement. `targets` locks the links' target records FOR KEY SHARE: a delete of one (FOR UPDATE)
 * waits for this statement, or it for the delete, and a row lock that waited reads the row's latest version, so a
 * target deleted meanwhile is not found; without every target, `writer` has no row and nothing is written (no row
 * comes back). `subscribers` are the webhooks that take the event (isSubscribed's rule); `writer` then takes the
 * outbox lock (OUTBOX_LOCK, shared) when there are any, before anything is written: the record's INSERT reads from it,
 * and the event takes its sequence after that INSERT (its EXISTS). The model's row is written by `counted`, after the
 * record (the final SELECT reads it, so it runs before `links` and `event`): it adds to the count only while the
 * model's definition is the version the data was checked against ($14), reading the row's latest version after
 * waiting for a model update that holds it (FOR UPDATE); when the version moved, the final SELECT calls
 * checks_outdated(), whose error undoes the whole statement. So a create takes no lock more than before on the
 * model's row, which every create of the model writes. A SKU taken already inserts nothing, so nothing else happens
 * and the row that comes back has no record. The event's body is recordPayload's, made here from the parameters: $4
 * is the data as the client's JSON text, $8 the time as toRecord shows it.
 */
const INSERT_RECORD = `WITH subscribers AS MATERIALIZED (
    SELECT w.id FROM webhooks w WHERE w.workspace_id = $3 AND w.active
      AND (w.events ? 'record.created' OR w.events ? '${ALL_EVENTS}') AND (w.model_ids IS NULL OR w.model_ids ? $2)
  ), targets AS MATERIALIZED (
    SELECT id FROM records WHERE id = ANY($9::text[]) FOR KEY SHARE
  ), writer AS MATERIALIZED (
    SELECT CASE WHEN EXISTS (SELECT 1 FROM subscribers) THEN pg_advisory_xact_lock_shared(${OUTBOX_LOCK_KEY}) END AS locked
    WHERE (SELECT count(*) FROM targets) = (SELECT count(DISTINCT t) FROM unnest($9::text[]) t WHERE t <> $1)
  ), ins AS (
    INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by)
    SELECT $1, $2, $3, $4::text::jsonb, $5, $6, $6, $7, $7 FROM writer
    ON CONFLICT (model_id, sku) DO NOTHING RETURNING ${COLUMNS}
  ), links AS (
    INSERT INTO record_links (target_id, source_id, field_key)
    SELECT l.target_id, $1, l.field_key FROM unnest($9::text[], $10::text[]) AS l (target_id, field_key)
    WHERE EXISTS (SELECT 1 FROM ins) ON CONFLICT DO NOTHING
  ), event AS (
    INSERT INTO webhook_events (id, workspace_id, type, model_id, model_slug, payload, created_at)
    SELECT $11, $3, 'record.created', $2, $12,
      '{"record":{"id":' || to_json($1::text)::text || ',"data":' || $4::text || ',"createdAt":"' || $8::text
        || '","updatedAt":"' || $8::text || '"}}', $6
    WHERE EXISTS (SELECT 1 FROM ins) AND EXISTS (SELECT 1 FROM subscribers)
  ), counted AS (
    UPDATE models SET record_count = record_count + 1, write_version = write_version + 1,
      content_version = content_version + 1, has_large_records = has_large_records OR $13::boolean
    WHERE id = $2 AND updated_at = $14 AND EXISTS (SELECT 1 FROM ins) RETURNING id
  )
  SELECT ins.*, (SELECT json_agg(json_build_object('id', id)) FROM subscribers) AS subscribers,
    CASE WHEN ins.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM counted) THEN checks_outdated() END AS outdated
  FROM writer LEFT JOIN ins ON true`;

export class PostgresRecordStore implements RecordStore {
  private readonly counts: CountCache;

  constructor(
    private readonly pool: Pool,
    /** Record writes add their webhook events here, in their own transaction. */
    private readonly outbox = new PostgresOutbox(),
    /** Told of the records written, so that their statistics follow (record-statistics.ts). */
    private readonly statistics = new RecordStatistics(pool),
    /** Records a sole server keeps for readers that share them (kept-reads.ts; null: always read). */
    private readonly kept: KeptReads<StoredRecord | null> | null = null,
  ) {
    this.counts = new CountCache(pool);
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
        `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by)
         SELECT r.id, $4, $5, r.data::jsonb, r.sku, $6, $6, $7, $7
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

  async get(workspaceId: string, id: string): Promise<StoredRecord | null> {
    const { rows } = await this.pool.query<RecordRow>({
      name: 'records_get',
      text: `SELECT ${COLUMNS} FROM records WHERE workspace_id = $1 AND id = $2`,
      values: [workspaceId, id],
      types: TEXT_VALUES,
    });
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async getMany(workspaceId: string, ids: readonly string[], reading: ManyReading = {}): Promise<StoredRecord[] | 'too-large'> {
    if (ids.length === 0) return [];
    const parameters: unknown[] = [workspaceId, ids];
    let where = 'workspace_id = $1 AND id = ANY($2::text[])';
    if (reading.modelId) where += ` AND model_id = $${parameters.push(reading.modelId)}`;
    const maxDataBytes = reading.maxDataBytes ?? null;
    if (maxDataBytes === null && reading.modelId && reading.shared && this.kept) {
      return this.keptOfModel(workspaceId, ids, reading.modelId);
    }
    // Named (a few texts: with or without a model, with or without a bound): parsed once per connection.
    const name = `records_many${reading.modelId ? '_model' : ''}${maxDataBytes === null ? '' : '_bounded'}`;
    if (maxDataBytes === null) {
      const text = `SELECT ${COLUMNS} FROM records WHERE ${where}`;
      const { rows } = await this.pool.query<RecordRow>({ name, text, values: parameters, types: TEXT_VALUES });
      return rows.map(toRecord);
    }
    // Measured by the database in the same query: over the bound, the rows come without their data.
    const bound = `$${parameters.push(maxDataBytes)}`;
    const selected = COLUMN_LIST.map((column) =>
      column === 'data' ? `CASE WHEN total_bytes <= ${bound} THEN data END AS data` : column,
    );
    const text = `SELECT ${selected.join(', ')}, total_bytes FROM (
         SELECT ${COLUMNS}, sum(octet_length(data::text)) OVER () AS total_bytes FROM records WHERE ${where}) measured`;
    const { rows } = await this.pool.query<RecordRow & { total_bytes: string }>({
      name,
      text,
      values: parameters,
      types: TEXT_VALUES,
    });
    if (rows.length > 0 && Number(rows[0]!.total_bytes) > maxDataBytes) return 'too-large';
    return rows.map(({ total_bytes: _total, ...row }) => toRecord(row));
  }

  /** The records of `ids` of the model, those a sole server kept given again (an id kept as missing is none). */
  private async keptOfModel(workspaceId: string, ids: readonly string[], modelId: string): Promise<StoredRecord[]> {
    const kept = this.kept!;
    const keyOf = (id: string) => `${workspaceId}\u0000${modelId}\u0000${id}`;
    const { found, missing } = splitByKept(ids, (id) => kept.current(keyOf(id)));
    if (missing.length === 0) return found;
    const moment = kept.moment();
    const read = (await this.getMany(workspaceId, missing, { modelId })) as StoredRecord[];
    for (const [id, record] of foundOrNone(missing, read)) kept.remember(keyOf(id), record, moment);
    return [...found, ...read];
  }

  async modify(
    workspaceId: string,
    id: string,
    userId: string | null,
    change: (current: StoredRecord, definitionVersion: number) => ReplacementData,
  ): Promise<StoredRecord | null> {
    let modelId: string | null = null;
    let wrote = false;
    try {
      const modified = await writingRecords(this.pool, async (client): Promise<StoredRecord | null> => {
        const row = await lockRecordToWrite(client, workspaceId, id, 'FOR NO KEY UPDATE');
        if (!row) return null;
        modelId = row.model_id;
        // A statement after the one that took the definition lock: it reads the definition as it is now.
        const { rows: versions } = await client.query<{ updated_at: string }>({
          name: 'record_unlink_definition',
          text: 'WITH unlinked AS (DELETE FROM record_links WHERE source_id = $1) SELECT updated_at FROM models WHERE id = $2',
          values: [id, row.model_id],
        });
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
           UPDATE records SET data = $1::jsonb, sku = $2, updated_at = GREATEST($3::bigint, updated_at), updated_by = $4
           WHERE id = $5 RETURNING ${COLUMNS}, ${subscriptionsColumn('$6')}`,
          [next.dataText, next.sku, Date.now(), userId, id, workspaceId, randomInt(CONTENT_COUNTER_SHARDS)],
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

  async delete(workspaceId: string, id: string, force: boolean): Promise<'deleted' | 'not-found' | Reference[]> {
    let wrote = false;
    const outcome = await writingRecords(this.pool, async (client): Promise<'deleted' | 'not-found' | Reference[]> => {
      const row = await lockRecordToWrite(client, workspaceId, id, 'FOR UPDATE');
      if (!row) return 'not-found';
      const references = await selectReferences(client, id);
      if (references.length > 0 && !force) return references;
      // The records changed here are of the same workspace: addToCount below moves its content version for them.
      // One time for the delete and the records it changes: their events are due together, in sequence order.
      const now = Date.now();
      const changed = new Map<string, StoredRecord>();
      for (const reference of references) changed.set(reference.sourceId, await dropReference(client, reference, id, now));
      await client.query('DELETE FROM record_links WHERE target_id = $1 OR source_id = $1', [id]);
      await client.query('DELETE FROM records WHERE id = $1', [id]);
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
      for (const source of changed.values()) {
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
      return 'deleted';
    });
    this.outbox.committed(wrote);
    return outcome;
  }

  async existingIds(modelId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await this.pool.query<{ id: string }>(
      'SELECT id FROM records WHERE model_id = $1 AND id = ANY($2::text[])',
      [modelId, ids],
    );
    return new Set(rows.map((row) => row.id));
  }

  async list(modelId: string, window: ListWindow, after?: PageCursor, reading: PageReading = FULL_PAGE): Promise<StoredRecord[]> {
    const order = ORDER_BY[window.sort];
    const columns = reading.data ? COLUMNS : COLUMNS_WITHOUT_DATA;
    const [pageSql, parameters] = after
      ? [
          `SELECT ${columns} FROM records WHERE model_id = $1 AND ${afterCursor(window.sort, '$2', '$3')} ORDER BY ${order} LIMIT $4`,
          [modelId, after.time, after.id, window.limit],
        ]
      : [
          `SELECT ${columns} FROM records WHERE model_id = $1 ORDER BY ${order} LIMIT $2 OFFSET $3`,
          [modelId, window.limit, window.offset],
        ];
    const bound = reading.data ? reading.maxDataBytes : null;
    if (bound === null) {
      return (await this.pool.query<RecordRow>({ text: pageSql, values: parameters, types: TEXT_VALUES })).rows.map(toRecord);
    }
    const sql = boundedPageSql(pageSql, COLUMN_LIST, 'octet_length(data::text)', order, `$${parameters.length + 1}`);
    const { rows } = await this.pool.query<RecordRow & { running_bytes: string }>({
      text: sql,
      values: [...parameters, bound],
      types: TEXT_VALUES,
    });
    const fitting = rows.findIndex((row) => Number(row.running_bytes) > bound);
    if (fitting !== -1) throw pageTooLargeError(fitting, bound);
    return rows.map(toRecord);
  }

  async listWithModel(workspaceId: string, key: ModelKey, window: ListWindow, reading: PageReading): Promise<ModelPage | null> {
    return selectModelPage(this.pool, workspaceId, key, window, reading);
  }

  async find(modelId: string, query: RecordQuery, reading: PageReading = FULL_PAGE): Promise<StoredRecord[]> {
    const columns = reading.data ? COLUMN_LIST : COLUMN_LIST_WITHOUT_DATA;
    const rows = await findRows<RecordRow>(this.pool, modelId, query, columns, reading.data ? reading.maxDataBytes : null);
    return rows.map(toRecord);
  }

  count(modelId: string, filter: FilterNode): Promise<number> {
    const sql = new PostgresFilteredQuery(modelId, filter);
    return this.counts.count(modelId, sql.count(), sql.values);
  }
}

/**
 * A page query with a bound on its data: `pageSql` selects `columns` (which include `data`) in `order`; the
 * answer has the same rows, but a row whose running total of data bytes (in page order) is over the bound comes
 * with `data` NULL, and every row carries that total as `running_bytes`. PostgreSQL measures the data itself, so no
 * more of it than the bound is ever sent to this process.
 */
function boundedPageSql(pageSql: string, columns: readonly string[], dataBytes: string, order: string, bound: string): string {
  const selected = columns.map((column) =>
    column === 'data' ? `CASE WHEN running_bytes <= ${bound} THEN data END AS data` : column,
  );
  return (
    `SELECT ${selected.join(', ')}, running_bytes FROM (` +
    `SELECT page.*, sum(${dataBytes}) OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) AS running_bytes FROM (${pageSql}) page` +
    `) sized ORDER BY ${order}`
  );
}

interface SourcedLink extends RecordLink {
  sourceId: string;
}

/** The refusal of a write that found its model changed or gone: NOT_FOUND when it is gone, else ChecksOutdated. */
async function outdatedOrGone(db: Queryable, modelId: string): Promise<ServiceError> {
  const { rows } = await db.query('SELECT 1 FROM models WHERE id = $1', [modelId]);
  return rows.length === 0 ? modelGone() : new ChecksOutdated();
}

/**
 * Writes the links whose targets exist, locking those FOR KEY SHARE until the commit (a delete of one waits, then
 * finds the link); throws ChecksOutdated when a target is gone (deleted since the data was checked), which ends the
 * transaction with nothing written.
 */
async function writeLinks(client: PoolClient, links: SourcedLink[]): Promise<void> {
  if (links.length === 0) return;
  const targetIds = links.map((link) => link.targetId);
  const { rows } = await client.query<{ found: number }>(
    `WITH targets AS MATERIALIZED (
       SELECT id FROM records WHERE id = ANY($1::text[]) FOR KEY SHARE
     ), written AS (
       INSERT INTO record_links (target_id, source_id, field_key)
       SELECT l.target_id, l.source_id, l.field_key
       FROM unnest($1::text[], $2::text[], $3::text[]) AS l (target_id, source_id, field_key)
       WHERE l.target_id IN (SELECT id FROM targets) ON CONFLICT DO NOTHING
     )
     SELECT count(*)::integer AS found FROM targets`,
    [targetIds, links.map((link) => link.sourceId), links.map((link) => link.fieldKey)],
  );
  if (rows[0]!.found < new Set(targetIds).size) throw new ChecksOutdated();
}

/**
 * addToCount for records checked against the model's definition as `model` has it: only while it still is (read after
 * waiting for a model update that holds the row); ChecksOutdated (NOT_FOUND when the model is gone) otherwise, which
 * ends the transaction with nothing written. A model update waits for the transaction from here on.
 */
async function addCheckedToCount(
  client: PoolClient,
  model: WriteContext['model'],
  delta: number,
): Promise<WithSubscriptions['webhook_subscriptions']> {
  const { rows } = await client.query<WithSubscriptions>(
    `UPDATE models SET record_count = record_count + $1, write_version = write_version + 1,
       content_version = content_version + 1 WHERE id = $2 AND updated_at = $3
     RETURNING ${subscriptionsColumn('models.workspace_id')}`,
    [delta, model.id, definitionVersion(model)],
  );
  if (!rows[0]) throw await outdatedOrGone(client, model.id);
  return rows[0].webhook_subscriptions;
}

/** Returns the workspace's active webhooks (subscriptionsColumn), read in the same statement. */
async function addToCount(
  client: PoolClient,
  modelId: string,
  delta: number,
): Promise<WithSubscriptions['webhook_subscriptions']> {
  // content_version (the delivery route's ETag) moves in the same statement as the count.
  const { rows } = await client.query<WithSubscriptions>(
    `UPDATE models SET record_count = record_count + $1, write_version = write_version + 1,
       content_version = content_version + 1 WHERE id = $2 RETURNING ${subscriptionsColumn('models.workspace_id')}`,
    [delta, modelId],
  );
  return rows[0]?.webhook_subscriptions ?? null;
}

/**
 * A transaction that writes records, holding its table lock on `records` from its start (sent with BEGIN: no round
 * trip more), as a create's statement does; its other locks come after it. A model update that changes field indexes
 * takes the table lock before its other locks too (lockRecordsForIndexChanges): one order for both, so they cannot
 * deadlock. A model deleted meanwhile (the records' foreign key) is NOT_FOUND; a transaction PostgreSQL ended to
 * break a deadlock wrote nothing, and is checked and tried again (ChecksOutdated).
 */
async function writingRecords<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  try {
    return await refusingGoneModel(inTransaction(pool, work, 'BEGIN; LOCK TABLE records IN ROW EXCLUSIVE MODE'));
  } catch (error) {
    if (isDeadlock(error)) throw new ChecksOutdated();
    throw error;
  }
}

/**
 * The record to modify (FOR NO KEY UPDATE: writers of the same record wait here one after the other, while creates
 * that link to it, FOR KEY SHARE, do not wait) or to delete (FOR UPDATE: creates that link to it wait, and it for
 * them), after its model's definition lock (shared): a model update waits for this transaction, or it for the update.
 */
async function lockRecordToWrite(
  client: PoolClient,
  workspaceId: string,
  id: string,
  strength: 'FOR NO KEY UPDATE' | 'FOR UPDATE',
): Promise<RecordRow | null> {
  // Named (prepared once per connection): one of the statements of every patch and delete.
  const { rows } = await client.query<RecordRow>({
    name: `record_lock_${strength === 'FOR UPDATE' ? 'delete' : 'modify'}`,
    text: `WITH held AS MATERIALIZED (
       SELECT pg_advisory_xact_lock_shared(${definitionLockKey('model_id')}) FROM records WHERE workspace_id = $1 AND id = $2
     )
     SELECT ${COLUMN_LIST.map((column) => `r.${column}`).join(', ')}
     FROM held, records r WHERE r.workspace_id = $1 AND r.id = $2 ${strength} OF r`,
    values: [workspaceId, id],
  });
  return rows[0] ?? null;
}

async function selectReferences(db: Queryable, id: string): Promise<Reference[]> {
  const { rows } = await db.query<{ source_id: string; slug: string; field_key: string }>(
    `SELECT l.source_id, m.slug, l.field_key FROM record_links l
     JOIN records r ON r.id = l.source_id JOIN models m ON m.id = r.model_id
     WHERE l.target_id = $1 AND l.source_id <> $1 ORDER BY l.source_id, l.field_key`,
    [id],
  );
  return rows.map((row) => ({ sourceId: row.source_id, modelSlug: row.slug, fieldKey: row.field_key }));
}

/** Removes one reference to `targetId` from the record that holds it; the record as it now is. */
async function dropReference(client: PoolClient, reference: Reference, targetId: string, now: number): Promise<StoredRecord> {
  const { rows } = await client.query<{ data: RecordData; fields: FieldDefinition[]; updated_at: string }>(
    `SELECT r.data, m.fields, r.updated_at FROM records r JOIN models m ON m.id = r.model_id
     WHERE r.id = $1 FOR UPDATE OF r`,
    [reference.sourceId],
  );
  const source = rows[0]!;
  const data = withoutReference(source.fields, source.data, reference.fieldKey, targetId);
  const updated = await client.query<RecordRow>(
    `UPDATE records SET data = $1::jsonb, updated_at = $2 WHERE id = $3 RETURNING ${COLUMNS}`,
    [JSON.stringify(data), Math.max(now, toNumber(source.updated_at)), reference.sourceId],
  );
  return toRecord(updated.rows[0]!);
}
