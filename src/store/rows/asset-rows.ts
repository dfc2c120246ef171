// Asset rows and the assets made from them (docs/media.md).
import type { AssetAccess, AssetType } from '../../shared/media.js';
import type { AssetUse, StoredAsset, StoredContent } from '../contract/assets.js';
import { fromJson, type Json } from './json.js';
import type { Millis } from './time.js';

/** An asset's columns as read (ASSET_COLUMNS): its author's email in place of the user id, and its usage. */
export interface AssetRow {
  id: string;
  workspace_id: string;
  filename: string;
  mime_type: string;
  type: string;
  /** A bigint on PostgreSQL: text. */
  size: number | string;
  width: number | null;
  height: number | null;
  blurhash: string | null;
  sha256: string;
  alt: Json<Record<string, string>> | null;
  tags: Json<string[]>;
  focal_x: number | null;
  focal_y: number | null;
  access: string;
  signing_key: string;
  created_at: Millis;
  updated_at: Millis;
  created_by: string | null;
  /** count(…): a bigint on PostgreSQL. */
  usage: number | string;
}

export function toAsset(row: AssetRow): StoredAsset {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    filename: row.filename,
    mimeType: row.mime_type,
    type: row.type as AssetType,
    size: Number(row.size),
    width: row.width,
    height: row.height,
    blurhash: row.blurhash,
    sha256: row.sha256,
    alt: row.alt === null ? null : fromJson(row.alt),
    tags: fromJson(row.tags),
    focalPoint: row.focal_x === null || row.focal_y === null ? null : { x: row.focal_x, y: row.focal_y },
    access: row.access as AssetAccess,
    signingKey: row.signing_key,
    usage: Number(row.usage),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    createdBy: row.created_by,
  };
}

/** A record holding an asset, as usesOf and a refused delete read it. */
export interface AssetUseRow {
  source_id: string;
  slug: string;
  field_key: string;
}

export function toAssetUse(row: AssetUseRow): AssetUse {
  return { recordId: row.source_id, modelSlug: row.slug, fieldKey: row.field_key };
}

export interface ContentRow {
  workspace_id: string;
  sha256: string;
  mime_type: string;
}

export function toContent(row: ContentRow): StoredContent {
  return { workspaceId: row.workspace_id, sha256: row.sha256, mimeType: row.mime_type };
}
