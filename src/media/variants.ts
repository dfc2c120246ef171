// A variant of an image, made once and kept (docs/media.md, "Serving"): found in storage when it was made before,
// else rendered through the render queue, so that concurrent requests for a new variant wait for one render.
import type { FocalPoint } from '../shared/media.js';
import { renderVariant } from './render.js';
import type { RenderQueue } from './render-queue.js';
import { variantPrefix, type Storage } from './storage.js';
import type { TransformRequest } from './transform-params.js';
import { formatMimeType, renderFormat, variantName } from './variant-key.js';

export interface VariantSource {
  storage: Storage;
  queue: RenderQueue;
  workspaceId: string;
  /** The content's hash: its variants are kept under variantPrefix(workspaceId, sha256). */
  sha256: string;
  /** Where the original's bytes are (contentKey(workspaceId, sha256)). */
  originalKey: string;
  originalMime: string;
  request: TransformRequest;
  focalPoint: FocalPoint | null;
}

export interface Variant {
  /** The storage key to serve. */
  key: string;
  size: number;
  mimeType: string;
  /** Whether this call waited for it to be rendered (false: it was kept already). */
  made: boolean;
}

/** The kept variant `request` asks for, rendered and stored first when there is none. Rejects with RenderBusy. */
export async function getOrMakeVariant(source: VariantSource): Promise<Variant> {
  const { storage, queue, workspaceId, sha256, originalMime, request, focalPoint } = source;
  const key = variantPrefix(workspaceId, sha256) + variantName(request, focalPoint, originalMime);
  const mimeType = formatMimeType(renderFormat(request, originalMime));
  const kept = await storage.head(key);
  if (kept) return { key, size: kept.size, mimeType, made: false };
  return queue.run(key, async () => {
    // A render of this key may have finished between the look above and this work's turn.
    const keptSince = await storage.head(key);
    if (keptSince) return { key, size: keptSince.size, mimeType, made: false };
    const original = await storage.read(source.originalKey);
    if (!original) throw new Error(`The original of variant ${key} is not in storage (${source.originalKey})`);
    const rendered = await renderVariant(original, request, focalPoint, originalMime);
    await storage.putBytes(key, rendered.bytes, rendered.mimeType);
    return { key, size: rendered.bytes.length, mimeType: rendered.mimeType, made: true };
  });
}
