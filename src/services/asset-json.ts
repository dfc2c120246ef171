// An asset as the routes beside GraphQL answer it (POST /assets, the tus upload's answer): the GraphQL `Asset` shape.
import type { StoredAsset } from '../store/store.js';

export interface AssetJson {
  id: string;
  filename: string;
  mimeType: string;
  type: string;
  size: number;
  width: number | null;
  height: number | null;
  blurhash: string | null;
  sha256: string;
  alt: Record<string, string> | null;
  tags: string[];
  focalPoint: { x: number; y: number } | null;
  access: string;
  url: string;
  usage: number;
  createdAt: string;
  createdBy: string | null;
}

export function assetJson(asset: StoredAsset, url: string): AssetJson {
  const { id, filename, mimeType, type, size, width, height, blurhash, sha256, alt, tags, focalPoint, access } = asset;
  return {
    id,
    filename,
    mimeType,
    type,
    size,
    width,
    height,
    blurhash,
    sha256,
    alt,
    tags,
    focalPoint,
    access,
    url,
    usage: asset.usage,
    createdAt: new Date(asset.createdAt).toISOString(),
    createdBy: asset.createdBy,
  };
}
