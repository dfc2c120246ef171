// Publishing on PostgreSQL (docs/lifecycle.md): one transaction, all of its records or none. The records are
// locked as a patch locks one (their models' definition locks shared, then the rows, in id order so that two
// publishes of overlapping sets wait for each other instead of deadlocking).
import type { RecordStatistics } from './record-statistics.js';
import type { Pool, PoolClient } from 'pg';
import type { StoredRecord } from '../../domain/stored-record.js';
import type { PublishingStore, PublishOutcome } from '../contract/publishing.js';
import { toRecord, type RecordRow } from '../rows/record-rows.js';
import {
  addToPublished,
  copyLinksToPublished,
  dropPublishedLinks,
  publishRecords,
  recordsToPublish,
  unservedTargets,
  unpublishRecords,
} from '../query/drafts-sql.js';
import { publicationPayload, publishedCountChanges, type RecordToPublish } from '../core/publishing.js';
import type { PostgresOutbox } from './webhook-outbox.js';
import { definitionLockKey } from './definition-lock.js';
import { COLUMNS } from './record-reads.js';
import { writingRecords } from './record-writes.js';
import { TEXT_VALUES } from './sql.js';

const IDS = 'id = ANY($1::text[])';

export class PostgresPublishing implements PublishingStore {
  constructor(
    private readonly pool: Pool,
    /** The events of the records published and unpublished, in the same transaction. */
    private readonly outbox: PostgresOutbox,
    /** Told of the published copies made, so that their statistics follow (record-statistics.ts). */
    private readonly statistics: RecordStatistics | null = null,
  ) {}

  publish(workspaceId: string, ids: readonly string[]): Promise<PublishOutcome> {
    return this.change(workspaceId, ids, 'publish');
  }

  unpublish(workspaceId: string, ids: readonly string[]): Promise<PublishOutcome> {
    return this.change(workspaceId, ids, 'unpublish');
  }

  private async change(workspaceId: string, ids: readonly string[], action: 'publish' | 'unpublish'): Promise<PublishOutcome> {
    let wrote = false;
    let copies = 0;
    const outcome = await writingRecords(this.pool, async (client) => {
      const applied = await this.applyWith(client, workspaceId, ids, action);
      ({ wrote, copies } = applied);
      return applied.outcome;
    });
    this.outbox.committed(wrote);
    this.copiesMade(copies);
    return outcome;
  }

  /** After the commit of an applyWith: the published copies it made count toward their table's statistics. */
  copiesMade(copies: number): void {
    if (copies > 0) this.statistics?.wrote(copies);
  }

  private async applySteps(client: PoolClient, action: 'publish' | 'unpublish', draftIds: string[], at: number): Promise<void> {
    if (action === 'unpublish') {
      const [removeCopies, mark] = unpublishRecords(IDS);
      await client.query(dropPublishedLinks(IDS), [draftIds]);
      await client.query(`WITH removed AS (${removeCopies!}) ${mark!}`, [draftIds]);
      return;
    }
    const [removeCopies, copy, mark] = publishRecords(IDS, '$2');
    await client.query(dropPublishedLinks(IDS), [draftIds]);
    await client.query(removeCopies!, [draftIds]);
    await client.query(`WITH marked AS (${mark!}) ${copy!}`, [draftIds, at]);
    await client.query(copyLinksToPublished(IDS), [draftIds]);
  }

  async unpublishedTargets(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string }>(unservedTargets(`source_${IDS}`), [ids]);
    return rows.map((row) => row.id);
  }

  /**
   * In a transaction of record writes (writingRecords): checks that every id is a record of the workspace, then
   * changes those of drafts models (nothing when an id is missing), with their events. `copies`: the published
   * copies made (for copiesMade after the commit). `wrote`: an event to wake the
   * worker for after the commit.
   */
  async applyWith(
    client: PoolClient,
    workspaceId: string,
    ids: readonly string[],
    action: 'publish' | 'unpublish',
  ): Promise<{ outcome: PublishOutcome; wrote: boolean; copies: number }> {
    let wrote = false;
    await client.query(
      `SELECT pg_advisory_xact_lock_shared(${definitionLockKey('model_id')})
       FROM (SELECT DISTINCT model_id FROM records WHERE workspace_id = $2 AND ${IDS} ORDER BY model_id) models`,
      [ids, workspaceId],
    );
    // A statement after the definition locks: it reads the models' drafts settings as they are now.
    const { rows: found } = await client.query<RecordToPublish>(
      `${recordsToPublish('$2', IDS)} ORDER BY r.id FOR NO KEY UPDATE OF r`,
      [ids, workspaceId],
    );
    const byId = new Set(found.map((row) => row.id));
    const missingAt = ids.findIndex((id) => !byId.has(id));
    if (missingAt !== -1) return { outcome: { missingAt }, wrote, copies: 0 };
    const drafts = found.filter((row) => row.drafts);
    if (drafts.length > 0) {
      await this.applySteps(
        client,
        action,
        drafts.map((row) => row.id),
        Date.now(),
      );
      for (const [modelId, count] of publishedCountChanges(drafts, action))
        await client.query(addToPublished('$1', '$2'), [count, modelId]);
    }
    const { rows } = await client.query<RecordRow>({
      text: `SELECT ${COLUMNS} FROM records WHERE ${IDS}`,
      values: [ids],
      types: TEXT_VALUES,
    });
    const records = new Map(rows.map((row) => [row.id, toRecord(row)]));
    if (drafts.length > 0) {
      const subscriptions = await this.outbox.subscriptions(client, workspaceId);
      const at = Date.now();
      for (const draft of drafts) {
        const record = records.get(draft.id)!;
        const event = {
          workspaceId,
          type: action === 'publish' ? ('record.published' as const) : ('record.unpublished' as const),
          modelId: draft.model_id,
          modelSlug: null,
          at,
          payload: () => publicationPayload(action, record),
        };
        if (await this.outbox.add(client, event, subscriptions)) wrote = true;
      }
    }
    const copies = action === 'publish' ? drafts.length : 0;
    return { outcome: { records: ids.map((id) => records.get(id) as StoredRecord) }, wrote, copies };
  }
}
