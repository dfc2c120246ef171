// Where an asset is served (docs/media.md): `Asset.url` is absolute, the serving route's path after the service's
// public URL when one is configured (`--public-url`, for a service behind a proxy), else after the origin the
// request came to, so that a page on another origin can use it as it is.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { assetPath } from '../shared/media.js';
import type { StoredAsset } from '../store/store.js';

export class AssetUrls {
  private readonly origin: string;

  constructor(publicUrl: string | null = null) {
    this.origin = publicUrl ? publicUrl.replace(/\/+$/, '') : '';
  }

  /** `requestOrigin`: the scheme, host and port the request came to (absent: the path alone, without a public URL). */
  url(asset: Pick<StoredAsset, 'workspaceId' | 'id' | 'filename'>, requestOrigin?: string): string {
    return (this.origin || requestOrigin || '') + assetPath(asset.workspaceId, asset.id, asset.filename);
  }

  /** The URL with `expires` (Unix seconds) and its signature, for a private asset without a token. */
  signedUrl(asset: StoredAsset, expiresAt: number, requestOrigin?: string): string {
    return `${this.url(asset, requestOrigin)}?expires=${expiresAt}&sig=${signature(asset, expiresAt)}`;
  }
}

function signature(asset: Pick<StoredAsset, 'id' | 'signingKey'>, expiresAt: number): string {
  return createHmac('sha256', asset.signingKey).update(`${asset.id}:${expiresAt}`).digest('base64url');
}

/** Whether a signed URL's `expires` and `sig` are this asset's, and not past at `nowSeconds`. */
export function signatureHolds(
  asset: Pick<StoredAsset, 'id' | 'signingKey'>,
  expires: string,
  sig: string,
  nowSeconds: number,
): 'valid' | 'expired' | 'invalid' {
  if (!/^\d{1,12}$/.test(expires)) return 'invalid';
  const expected = Buffer.from(signature(asset, Number(expires)));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return Number(expires) < nowSeconds ? 'expired' : 'valid';
}
