// An asset as the routes beside GraphQL answer it (POST /assets, the tus upload's answer): the GraphQL `Asset` shape.
import { assetFields } from '../domain/webhook-events.js';
import type { StoredAsset } from '../store/store.js';

export type AssetJson = ReturnType<typeof assetFields> & { usage: number; createdBy: string | null };

export function assetJson(asset: StoredAsset, url: string): AssetJson {
  return { ...assetFields(asset, url), usage: asset.usage, createdBy: asset.createdBy };
}
