// Assets on SQLite (docs/media.md). Every write is one write of the record writes' group (write-group.ts): a record
// write that links to an asset and an asset's delete never interleave, so the delete finds the link, or the record
// write finds the asset gone (its target check) and writes nothing.
import type Database from 'better-sqlite3';
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
import { CASEFOLD_FUNCTION } from './record-filter.js';
import type { SqliteRecordStore } from './records.js';
import type { SqliteOutbox } from './webhook-outbox.js';
import type { WriteGroup } from './write-group.js';

const fold = (text: string) => `${CASEFOLD_FUNCTION}(${text})`;

export const SQLITE_ASSETS: AssetDialect = {
  contains: (haystack, needle) => `instr(${fold(haystack)}, ${fold(needle)}) > 0`,
  arrayElements: (json, alias) => `json_each(${json}) AS ${alias}`,
  objectValues: (json, alias) => `json_each(${json}) AS ${alias}`,
  sortText: fold,
  json: (placeholder) => placeholder,
  placeholder: () => '?',
};

export class SqliteAssetStore implements AssetStore {
  private readonly insert: Database.Statement;
  private readonly select: Database.Statement;
  private readonly selectMany: Database.Statement;
  private readonly uses: Database.Statement;
  private readonly usesUpTo: Database.Statement;
  private readonly removeLinks: Database.Statement;
  private readonly remove: Database.Statement;
  private readonly otherWithContent: Database.Statement;
  private readonly moveContentVersion: Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly writes: WriteGroup,
    /** Its forced-delete path removes a deleted asset from the records that hold it, as a forced record delete does. */
    private readonly records: SqliteRecordStore,
    private readonly outbox: SqliteOutbox,
  ) {
    this.insert = db.prepare(insertAsset(INSERTED_ASSET_COLUMNS.map(() => '?')));
    this.select = db.prepare(selectAsset('?', '?'));
    this.selectMany = db.prepare(selectAssets('?', 'a.id IN (SELECT value FROM json_each(?))'));
    this.uses = db.prepare(assetUses('?', '?', null));
    this.usesUpTo = db.prepare(assetUses('?', '?', '?'));
    this.removeLinks = db.prepare(deleteAssetLinks('?'));
    this.remove = db.prepare(deleteAsset('?'));
    this.otherWithContent = db.prepare(otherAssetWithContent('?', '?', '?')).pluck(true);
    this.moveContentVersion = db.prepare(moveWorkspaceContentVersion('?'));
  }

  async create(asset: NewAsset): Promise<StoredAsset> {
    return this.writes.run(() => {
      const { id, workspaceId, createdAt } = asset;
      this.insert.run(
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
      );
      const created = this.read(workspaceId, id)!;
      this.event(created, 'asset.created', () => assetPayload(created));
      return created;
    });
  }

  async get(workspaceId: string, id: string): Promise<StoredAsset | null> {
    return this.read(workspaceId, id);
  }

  async getMany(workspaceId: string, ids: readonly string[]): Promise<Map<string, StoredAsset>> {
    const found = new Map<string, StoredAsset>();
    if (ids.length === 0) return found;
    for (const row of this.selectMany.all(workspaceId, JSON.stringify([...new Set(ids)])) as AssetRow[]) {
      found.set(row.id, toAsset(row));
    }
    return found;
  }

  async list(workspaceId: string, query: AssetListQuery): Promise<{ total: number; items: StoredAsset[] }> {
    const { page, count } = listAssets(SQLITE_ASSETS, workspaceId, query);
    const items = (this.db.prepare(page.text).all(...page.values) as AssetRow[]).map(toAsset);
    const total = this.db
      .prepare(count.text)
      .pluck(true)
      .get(...count.values) as number;
    return { total, items };
  }

  async update(workspaceId: string, id: string, change: AssetChange, now: number): Promise<StoredAsset | null> {
    return this.writes.run(() => {
      const { text, values } = updateAsset(SQLITE_ASSETS, workspaceId, id, change, now);
      if (this.db.prepare(text).run(...values).changes === 0) return null;
      this.moveContentVersion.run(workspaceId);
      const updated = this.read(workspaceId, id)!;
      this.event(updated, 'asset.updated', () => assetPayload(updated));
      return updated;
    });
  }

  async delete(workspaceId: string, id: string, force: boolean, _userId: string | null): Promise<AssetDeletion> {
    return this.writes.run((): AssetDeletion => {
      const asset = this.read(workspaceId, id);
      if (!asset) return null;
      const uses = (this.uses.all(workspaceId, id) as AssetUseRow[]).map(toAssetUse);
      if (uses.length > 0 && !force) return { usedBy: uses };
      const now = Date.now();
      const { referenceDrops } = this.records;
      const references = uses.map((use) => ({ sourceId: use.recordId, modelSlug: use.modelSlug, fieldKey: use.fieldKey }));
      const changed = referenceDrops.drop(references, id, now);
      this.removeLinks.run(id);
      this.remove.run(id);
      this.moveContentVersion.run(workspaceId);
      this.event(asset, 'asset.deleted', () => deletedAssetPayload(id), now);
      referenceDrops.announce(workspaceId, changed);
      const contentStillUsed = this.otherWithContent.get(workspaceId, asset.sha256, id) !== undefined;
      return { deleted: asset, contentStillUsed };
    });
  }

  async contents(after: { workspaceId: string; sha256: string } | null, limit: number): Promise<StoredContent[]> {
    const rows = this.db
      .prepare(storedContents('?', '?', '?'))
      .all(after?.workspaceId ?? '', after?.workspaceId ?? '', after?.sha256 ?? '', limit) as ContentRow[];
    return rows.map(toContent);
  }

  async usesOf(workspaceId: string, id: string, limit: number): Promise<AssetUse[]> {
    return (this.usesUpTo.all(workspaceId, id, limit) as AssetUseRow[]).map(toAssetUse);
  }

  private read(workspaceId: string, id: string): StoredAsset | null {
    const row = this.select.get(workspaceId, id) as AssetRow | undefined;
    return row ? toAsset(row) : null;
  }

  /** The asset's event, in the write's transaction (an asset is of no model). */
  private event(asset: StoredAsset, type: WebhookEventType, payload: () => string, at = asset.updatedAt): void {
    this.outbox.add({
      workspaceId: asset.workspaceId,
      type,
      modelId: null,
      at,
      details: () => ({ modelSlug: null, payload: payload() }),
    });
  }
}
