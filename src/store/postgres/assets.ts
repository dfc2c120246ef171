// Assets on PostgreSQL (docs/media.md). A record write that links to an asset locks it FOR KEY SHARE
// (record-writes.ts); an asset's delete takes it FOR UPDATE first, so one waits for the other: the delete then reads
// the link the record write committed, or the record write finds the asset gone and writes nothing. Creates and
// deletes of one content (workspace and sha256) take its advisory lock, so that of two deletes of assets sharing it
// the later finds the earlier's done (whether the content is still used is then exact).
import type { Pool, PoolClient } from 'pg';
import type {
  StoredContent,
  AssetChange,
  AssetDeletion,
  AssetListQuery,
  AssetStore,
  AssetUse,
  NewAsset,
  StoredAsset,
} from '../contract/assets.js';
import { assetPayload, deletedAssetPayload, type WebhookEventType } from '../../domain/webhook-events.js';
import { ChecksOutdated } from '../conflicts.js';
import {
  storedContents,
  assetUses,
  deleteAsset,
  deleteAssetLinks,
  insertAsset,
  INSERTED_ASSET_COLUMNS,
  listAssets,
  moveWorkspaceContentVersion,
  otherAssetWithContent,
  selectAsset,
  selectAssets,
  updateAsset,
  type AssetDialect,
} from '../query/assets-sql.js';
import { toAsset, toAssetUse, toContent, type AssetRow, type AssetUseRow, type ContentRow } from '../rows/asset-rows.js';
import type { PostgresRecordStore } from './records.js';
import { writingRecords } from './record-writes.js';
import { inTransaction, type Queryable } from './sql.js';
import type { PostgresOutbox } from './webhook-outbox.js';

export const POSTGRES_ASSETS: AssetDialect = {
  // lower() without COLLATE "C": the database's own collation folds the case of every letter, not only A-Z.
  contains: (haystack, needle) => `strpos(lower(${haystack}), lower(${needle})) > 0`,
  arrayElements: (json, alias) => `jsonb_array_elements_text(${json}) AS ${alias}(value)`,
  objectValues: (json, alias) => `jsonb_each_text(${json}) AS ${alias}(key, value)`,
  sortText: (text) => `lower(${text}) COLLATE "C"`,
  json: (placeholder) => `${placeholder}::jsonb`,
  placeholder: (n) => `$${n}`,
};

/** The first key of the advisory lock of one content of a workspace (the second: the hash of the two). */
const CONTENT_LOCK = 0x43530006;
const LOCK_CONTENT = `SELECT pg_advisory_xact_lock(${CONTENT_LOCK}, hashtext($1 || ':' || $2))`;

/**
 * Tries of a delete that PostgreSQL ended to break a deadlock (a forced delete locks the records holding the asset
 * after the asset, a record write that links to it locks them the other way round); it wrote nothing.
 */
const DELETE_TRIES = 5;

const INSERT = insertAsset(
  INSERTED_ASSET_COLUMNS.map((column, index) =>
    column === 'alt' || column === 'tags' ? POSTGRES_ASSETS.json(`$${index + 1}`) : `$${index + 1}`,
  ),
);

export class PostgresAssetStore implements AssetStore {
  constructor(
    private readonly pool: Pool,
    /** Its forced-delete path removes a deleted asset from the records that hold it, as a forced record delete does. */
    private readonly records: PostgresRecordStore,
    private readonly outbox: PostgresOutbox,
  ) {}

  async create(asset: NewAsset): Promise<StoredAsset> {
    const { id, workspaceId, createdAt } = asset;
    let wrote = false;
    const created = await inTransaction(this.pool, async (client) => {
      await client.query(LOCK_CONTENT, [workspaceId, asset.sha256]);
      await client.query(INSERT, [
        id,
        workspaceId,
        asset.filename,
        asset.mimeType,
        asset.type,
        asset.size,
        asset.width,
        asset.height,
        asset.blurhash,
        asset.sha256,
        asset.alt === null ? null : JSON.stringify(asset.alt),
        JSON.stringify(asset.tags),
        asset.access,
        asset.signingKey,
        createdAt,
        createdAt,
        asset.userId,
      ]);
      const stored = (await read(client, workspaceId, id))!;
      wrote = await this.event(client, stored, 'asset.created', () => assetPayload(stored));
      return stored;
    });
    this.outbox.committed(wrote);
    return created;
  }

  async get(workspaceId: string, id: string): Promise<StoredAsset | null> {
    return read(this.pool, workspaceId, id);
  }

  async getMany(workspaceId: string, ids: readonly string[]): Promise<Map<string, StoredAsset>> {
    const found = new Map<string, StoredAsset>();
    if (ids.length === 0) return found;
    const { rows } = await this.pool.query<AssetRow>(selectAssets('$1', 'a.id = ANY($2::text[])'), [
      workspaceId,
      [...new Set(ids)],
    ]);
    for (const row of rows) found.set(row.id, toAsset(row));
    return found;
  }

  async list(workspaceId: string, query: AssetListQuery): Promise<{ total: number; items: StoredAsset[] }> {
    const { page, count } = listAssets(POSTGRES_ASSETS, workspaceId, query);
    const [items, counted] = await Promise.all([
      this.pool.query<AssetRow>(page.text, page.values),
      this.pool.query<{ n: string }>(count.text, count.values),
    ]);
    return { total: Number(counted.rows[0]!.n), items: items.rows.map(toAsset) };
  }

  async update(workspaceId: string, id: string, change: AssetChange, now: number): Promise<StoredAsset | null> {
    let wrote = false;
    const updated = await inTransaction(this.pool, async (client) => {
      const { text, values } = updateAsset(POSTGRES_ASSETS, workspaceId, id, change, now);
      if ((await client.query(text, values)).rowCount === 0) return null;
      await client.query(moveWorkspaceContentVersion('$1'), [workspaceId]);
      const stored = (await read(client, workspaceId, id))!;
      wrote = await this.event(client, stored, 'asset.updated', () => assetPayload(stored));
      return stored;
    });
    this.outbox.committed(wrote);
    return updated;
  }

  async delete(workspaceId: string, id: string, force: boolean, _userId: string | null): Promise<AssetDeletion> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.deleteOnce(workspaceId, id, force);
      } catch (error) {
        if (!(error instanceof ChecksOutdated) || tries >= DELETE_TRIES) throw error;
      }
    }
  }

  /** One transaction that writes records (writingRecords: its table lock first, as every record write's). */
  private async deleteOnce(workspaceId: string, id: string, force: boolean): Promise<AssetDeletion> {
    let wrote = false;
    const outcome = await writingRecords(this.pool, async (client): Promise<AssetDeletion> => {
      // FOR UPDATE: record writes linking to it (FOR KEY SHARE) wait for this transaction, or it for them; the
      // statements after this one read what those committed.
      const { rows } = await client.query<AssetRow>(`${selectAsset('$1', '$2')} FOR UPDATE OF a`, [workspaceId, id]);
      if (!rows[0]) return null;
      const asset = toAsset(rows[0]);
      await client.query(LOCK_CONTENT, [workspaceId, asset.sha256]);
      const found = await client.query<AssetUseRow>(assetUses('$1', '$2', null), [workspaceId, id]);
      const uses = found.rows.map(toAssetUse);
      if (uses.length > 0 && !force) return { usedBy: uses };
      const now = Date.now();
      const references = uses.map((use) => ({ sourceId: use.recordId, modelSlug: use.modelSlug, fieldKey: use.fieldKey }));
      const changed = await this.records.dropReferences(client, references, id, now);
      await client.query(deleteAssetLinks('$1'), [id]);
      await client.query(deleteAsset('$1'), [id]);
      // The workspace's content version moves for the changed records too.
      await client.query(moveWorkspaceContentVersion('$1'), [workspaceId]);
      const subscriptions = await this.outbox.subscriptions(client, workspaceId);
      wrote = await this.event(client, asset, 'asset.deleted', () => deletedAssetPayload(id), now, subscriptions);
      wrote = (await this.records.announceChanged(client, workspaceId, changed, subscriptions)) || wrote;
      const other = await client.query(otherAssetWithContent('$1', '$2', '$3'), [workspaceId, asset.sha256, id]);
      return { deleted: asset, contentStillUsed: other.rows.length > 0 };
    });
    this.outbox.committed(wrote);
    return outcome;
  }

  async contents(after: { workspaceId: string; sha256: string } | null, limit: number): Promise<StoredContent[]> {
    const { rows } = await this.pool.query<ContentRow>(storedContents('$1', '$2', '$3'), [
      after?.workspaceId ?? '',
      after?.sha256 ?? '',
      limit,
    ]);
    return rows.map(toContent);
  }

  async usesOf(workspaceId: string, id: string, limit: number): Promise<AssetUse[]> {
    const { rows } = await this.pool.query<AssetUseRow>(assetUses('$1', '$2', '$3'), [workspaceId, id, limit]);
    return rows.map(toAssetUse);
  }

  /** The asset's event, in the transaction of `client` (an asset is of no model); true: wake the worker. */
  private async event(
    client: PoolClient,
    asset: StoredAsset,
    type: WebhookEventType,
    payload: () => string,
    at = asset.updatedAt,
    subscriptions?: Awaited<ReturnType<PostgresOutbox['subscriptions']>>,
  ): Promise<boolean> {
    const event = { workspaceId: asset.workspaceId, type, modelId: null, modelSlug: null, at, payload };
    return this.outbox.add(client, event, subscriptions ?? (await this.outbox.subscriptions(client, asset.workspaceId)));
  }
}

async function read(db: Queryable, workspaceId: string, id: string): Promise<StoredAsset | null> {
  const { rows } = await db.query<AssetRow>(selectAsset('$1', '$2'), [workspaceId, id]);
  return rows[0] ? toAsset(rows[0]) : null;
}
