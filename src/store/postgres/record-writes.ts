// The statements and steps of record writes on PostgreSQL (records.ts runs them).
import { statusAfterChange } from './draft-writes.js';
import type { Pool, PoolClient } from 'pg';
import { definitionVersion, type FieldDefinition, type RecordData } from '../../domain/fields.js';
import { withoutReference } from '../../domain/relations.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import type { RecordLink, Reference, WriteContext } from '../store.js';
import { inTransaction, isDeadlock, isForeignKeyViolation, toNumber, type Queryable } from './sql.js';
import { definitionLockKey } from './definition-lock.js';
import { toRecord, type RecordRow } from '../rows/record-rows.js';
import { ChecksOutdated, modelGone } from '../conflicts.js';
import type { ServiceError } from '../../domain/errors.js';
import { ALL_EVENTS } from '../../domain/webhook-events.js';
import { COLUMN_LIST, COLUMNS } from './record-reads.js';
import type { PostgresHistoryWrites } from './record-history.js';
import { nextRevision } from '../query/history-sql.js';
import { OUTBOX_LOCK_KEY, subscriptionsColumn, type WithSubscriptions } from './webhook-outbox.js';

/** The write's outcome; a model deleted meanwhile (the records' foreign key) is NOT_FOUND. */
export async function refusingGoneModel<T>(write: Promise<T>): Promise<T> {
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
export type InsertedRow = { [Column in keyof RecordRow]: RecordRow[Column] | null } & {
  subscribers: { id: string }[] | null;
  outdated: null;
};

/**
 * A create as one statement. `targets` locks the links' targets FOR KEY SHARE, records and assets (a media field's
 * targets; two CTEs, as a locking clause is not allowed in a UNION): a delete of one (FOR UPDATE) waits for this
 * statement, or it for the delete, and a row lock that waited reads the row's latest version, so a target deleted
 * meanwhile is not found; without every target, `writer` has no row and nothing is written (no row comes back). `subscribers` are the webhooks that take the event (isSubscribed's rule); `writer` then takes the
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
export const INSERT_RECORD = `WITH subscribers AS MATERIALIZED (
    SELECT w.id FROM webhooks w WHERE w.workspace_id = $3 AND w.active
      AND (w.events ? 'record.created' OR w.events ? '${ALL_EVENTS}') AND (w.model_ids IS NULL OR w.model_ids ? $2)
  ), targets AS MATERIALIZED (
    SELECT id FROM records WHERE id = ANY($9::text[]) FOR KEY SHARE
  ), asset_targets AS MATERIALIZED (
    SELECT id FROM assets WHERE id = ANY($9::text[]) FOR KEY SHARE
  ), writer AS MATERIALIZED (
    SELECT CASE WHEN EXISTS (SELECT 1 FROM subscribers) THEN pg_advisory_xact_lock_shared(${OUTBOX_LOCK_KEY}) END AS locked
    WHERE (SELECT count(*) FROM targets) + (SELECT count(*) FROM asset_targets)
      = (SELECT count(DISTINCT t) FROM unnest($9::text[]) t WHERE t <> $1)
  ), ins AS (
    INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by,
      revision, revision_operation, publish_status)
    SELECT $1, $2, $3, $4::text::jsonb, $5, $6, $6, $7, $7, $15::int, CASE WHEN $15::int = 1 THEN 'create' ELSE 'restore' END,
      CASE WHEN $16::boolean THEN 'draft' END
    FROM writer
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

export interface SourcedLink extends RecordLink {
  sourceId: string;
}

/** The refusal of a write that found its model changed or gone: NOT_FOUND when it is gone, else ChecksOutdated. */
export async function outdatedOrGone(db: Queryable, modelId: string): Promise<ServiceError> {
  const { rows } = await db.query('SELECT 1 FROM models WHERE id = $1', [modelId]);
  return rows.length === 0 ? modelGone() : new ChecksOutdated();
}

/**
 * Writes the links whose targets (records, or assets) exist, locking those FOR KEY SHARE until the commit (a delete
 * of one waits, then finds the link); throws ChecksOutdated when a target is gone (deleted since the data was
 * checked), which ends the transaction with nothing written.
 */
export async function writeLinks(client: PoolClient, links: SourcedLink[]): Promise<void> {
  if (links.length === 0) return;
  const targetIds = links.map((link) => link.targetId);
  const { rows } = await client.query<{ found: number }>(
    `WITH record_targets AS MATERIALIZED (
       SELECT id FROM records WHERE id = ANY($1::text[]) FOR KEY SHARE
     ), asset_targets AS MATERIALIZED (
       SELECT id FROM assets WHERE id = ANY($1::text[]) FOR KEY SHARE
     ), targets AS (
       SELECT id FROM record_targets UNION ALL SELECT id FROM asset_targets
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
export async function addCheckedToCount(
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
export async function addToCount(
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
export async function writingRecords<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
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
export async function lockRecordToWrite(
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

export async function selectReferences(db: Queryable, id: string): Promise<Reference[]> {
  const { rows } = await db.query<{ source_id: string; slug: string; field_key: string }>(
    `SELECT l.source_id, m.slug, l.field_key FROM record_links l
     JOIN records r ON r.id = l.source_id JOIN models m ON m.id = r.model_id
     WHERE l.target_id = $1 AND l.source_id <> $1 ORDER BY l.source_id, l.field_key`,
    [id],
  );
  return rows.map((row) => ({ sourceId: row.source_id, modelSlug: row.slug, fieldKey: row.field_key }));
}

/**
 * Removes one reference to `targetId` from the record that holds it; the record as it now is, or null when it was
 * deleted since its reference was read (a delete of another record or of an asset reads the references before it
 * locks the records that hold them).
 */
export async function dropReference(
  client: PoolClient,
  reference: Reference,
  targetId: string,
  now: number,
  history: PostgresHistoryWrites,
): Promise<StoredRecord | null> {
  const { rows } = await client.query<{ data: RecordData; fields: FieldDefinition[]; updated_at: string; revision: number }>(
    `SELECT r.data, m.fields, r.updated_at, r.revision FROM records r JOIN models m ON m.id = r.model_id
     WHERE r.id = $1 FOR UPDATE OF r`,
    [reference.sourceId],
  );
  const source = rows[0];
  if (!source) return null;
  const data = withoutReference(source.fields, source.data, reference.fieldKey, targetId);
  await history.keepCurrent(client, reference.sourceId);
  await history.prune(client, reference.sourceId, source.revision + 1);
  const updated = await client.query<RecordRow>(
    `UPDATE records SET data = $1::jsonb, updated_at = $2, ${nextRevision("'update'")}, ${statusAfterChange('$1', '$3')}
     WHERE id = $3 RETURNING ${COLUMNS}`,
    [JSON.stringify(data), Math.max(now, toNumber(source.updated_at)), reference.sourceId],
  );
  return toRecord(updated.rows[0]!);
}
