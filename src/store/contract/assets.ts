// Assets (docs/media.md): the rows of uploaded files. Their bytes are in media storage (src/media), never here.
import type { AssetAccess, AssetType, FocalPoint } from '../../shared/media.js';

export interface StoredAsset {
  id: string;
  workspaceId: string;
  filename: string;
  mimeType: string;
  type: AssetType;
  size: number;
  width: number | null;
  height: number | null;
  blurhash: string | null;
  sha256: string;
  /** Locale → text (a plain string given at upload is stored under the workspace's default locale by the service). */
  alt: Record<string, string> | null;
  tags: string[];
  focalPoint: FocalPoint | null;
  access: AssetAccess;
  /** The secret a signed URL of this asset is signed with (random per asset; never answered). */
  signingKey: string;
  /** How many records' media fields hold it (working copies). */
  usage: number;
  createdAt: number;
  updatedAt: number;
  /** The email of the user whose token or session uploaded it; null when that user is gone. */
  createdBy: string | null;
}

/** A new asset's row: what the upload measured and the client said; `userId` the uploader's id. */
export type NewAsset = Omit<StoredAsset, 'focalPoint' | 'usage' | 'updatedAt' | 'createdBy'> & { userId: string | null };

/** What `asset.update` may change; an absent member stays, `focalPoint: null` clears it. */
export interface AssetChange {
  filename?: string;
  alt?: Record<string, string> | null;
  tags?: string[];
  focalPoint?: FocalPoint | null;
  access?: AssetAccess;
}

export interface AssetListQuery {
  limit: number;
  offset: number;
  /** Case-insensitive, in the filename, a tag or an alt text. */
  search: string | null;
  type: AssetType | null;
  /** Assets holding every one of these tags. */
  tags: string[] | null;
  /** `createdAt_desc` (default), `createdAt_asc`, `filename_asc`, `filename_desc`, `size_asc`, `size_desc`. */
  sort: string;
}

/** A record whose media field holds an asset. */
export interface AssetUse {
  recordId: string;
  modelSlug: string;
  fieldKey: string;
}

/** A delete: done (with whether the content is still used by another asset of the workspace), or who holds it. */
export type AssetDeletion = { deleted: StoredAsset; contentStillUsed: boolean } | { usedBy: AssetUse[] } | null;

/** One stored content: the bytes every asset of the workspace with that SHA-256 shares. */
export interface StoredContent {
  workspaceId: string;
  sha256: string;
  mimeType: string;
}

export interface AssetStore {
  /** Writes the row and its `asset.created` event in one transaction. */
  create(asset: NewAsset): Promise<StoredAsset>;
  get(workspaceId: string, id: string): Promise<StoredAsset | null>;
  /** The assets of `ids` that are of the workspace, by id (missing ones absent): media fields' checks and populate. */
  getMany(workspaceId: string, ids: readonly string[]): Promise<Map<string, StoredAsset>>;
  list(workspaceId: string, query: AssetListQuery): Promise<{ total: number; items: StoredAsset[] }>;
  /** Changes the row (and writes `asset.updated`); null when there is none. */
  update(workspaceId: string, id: string, change: AssetChange, now: number): Promise<StoredAsset | null>;
  /**
   * Deletes the asset and writes `asset.deleted`, in one transaction. While records' media fields hold it: their
   * uses, and nothing deleted, unless `force`, which removes it from those records (each a `record.updated`) first.
   * A record write that holds the asset and runs at the same time either commits first (and is found) or is
   * refused as written against a definition that changed (it rechecks and finds the asset gone).
   */
  delete(workspaceId: string, id: string, force: boolean, userId: string | null): Promise<AssetDeletion>;
  /** Stored contents after `after` (null: from the first) in (workspace, sha256) order, at most `limit`. */
  contents(after: Pick<StoredContent, 'workspaceId' | 'sha256'> | null, limit: number): Promise<StoredContent[]>;
  /** The records holding the asset (first `limit`), for `usage` details and refusals. */
  usesOf(workspaceId: string, id: string, limit: number): Promise<AssetUse[]>;
}
