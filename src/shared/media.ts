// Names of media (docs/media.md) that the service, the SDK and the admin application share.

/** An asset's kind, from its detected MIME type; what a media field's `acceptedTypes` names (all but `other`). */
export const ASSET_TYPES = ['image', 'video', 'audio', 'document', 'other'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

/** The kinds a media field may accept (`acceptedTypes`). */
export const ACCEPTED_ASSET_TYPES = ['image', 'video', 'audio', 'document'] as const;

export const ASSET_ACCESS = ['public', 'private'] as const;
export type AssetAccess = (typeof ASSET_ACCESS)[number];

/** The default upload limit in megabytes (`--max-upload-mb`). */
export const DEFAULT_MAX_UPLOAD_MB = 50;

/** Images with more pixels than this are refused at upload (`file: image too large`). */
export const MAX_IMAGE_PIXELS = 100_000_000;

/** A focal point, 0..1 from the top left. */
export interface FocalPoint {
  x: number;
  y: number;
}

/** The path an asset is served at (`Asset.url` without the public origin). */
export function assetPath(workspaceId: string, assetId: string, filename: string): string {
  return `/assets/${encodeURIComponent(workspaceId)}/${encodeURIComponent(assetId)}/${encodeURIComponent(filename)}`;
}
