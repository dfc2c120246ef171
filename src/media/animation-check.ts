// Whether a GIF or WebP asset is animated (served as it is, never transformed), read once per content and kept.
import sharp from 'sharp';
import { BoundedMap } from '../shared/bounded-map.js';
import { contentKey, type Storage } from './storage.js';
import type { StoredAsset } from '../store/store.js';

const MAY_BE_ANIMATED = new Set(['image/gif', 'image/webp']);

export class AnimationCheck {
  private readonly known = new BoundedMap<string, boolean>(10_000);

  constructor(private readonly storage: Storage) {}

  async isAnimated(asset: Pick<StoredAsset, 'workspaceId' | 'sha256' | 'mimeType'>): Promise<boolean> {
    if (!MAY_BE_ANIMATED.has(asset.mimeType)) return false;
    const cached = this.known.get(asset.sha256);
    if (cached !== undefined) return cached;
    const stream = await this.storage.read(contentKey(asset.workspaceId, asset.sha256));
    if (!stream) return false;
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const { pages } = await sharp(Buffer.concat(chunks), { animated: true, limitInputPixels: false }).metadata();
    const animated = (pages ?? 1) > 1;
    this.known.set(asset.sha256, animated);
    return animated;
  }
}
