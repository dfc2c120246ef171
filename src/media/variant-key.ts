// The name a variant is kept under (beneath variantPrefix(workspaceId, sha256), src/media/storage.ts): everything that
// changes its bytes, in a fixed order, so that the same transform of the same content always finds the same file.
import type { FocalPoint } from '../shared/media.js';
import type { TransformRequest } from './transform-params.js';

/** What sharp writes a variant as: the formats asked for by name, and GIF for a still GIF kept in its format. */
export type RenderFormat = 'webp' | 'avif' | 'jpeg' | 'png' | 'gif';

const FORMAT_OF_MIME: Record<string, RenderFormat> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/gif': 'gif',
};

const EXTENSION: Record<RenderFormat, string> = { jpeg: 'jpg', png: 'png', webp: 'webp', avif: 'avif', gif: 'gif' };

/** The format a variant is written in: the one asked for, else the original's. */
export function renderFormat(request: TransformRequest, originalMime: string): RenderFormat {
  if (request.format !== 'original') return request.format;
  const format = FORMAT_OF_MIME[originalMime];
  if (format === undefined) throw new Error(`No variant can be made of ${originalMime}`);
  return format;
}

export function formatMimeType(format: RenderFormat): string {
  return `image/${format}`;
}

/** Whether the focal point moves the crop: only `cover` with both sides given crops. */
export function usesFocalPoint(request: TransformRequest, focalPoint: FocalPoint | null): focalPoint is FocalPoint {
  return focalPoint !== null && request.fit === 'cover' && request.width !== null && request.height !== null;
}

/** E.g. `w800-h0-cover-fp0.5x0.5-q80.webp` (0: that side not given). */
export function variantName(request: TransformRequest, focalPoint: FocalPoint | null, originalMime: string): string {
  const format = renderFormat(request, originalMime);
  const parts = [`w${request.width ?? 0}`, `h${request.height ?? 0}`, request.fit];
  if (usesFocalPoint(request, focalPoint)) {
    const { x, y } = normaliseFocalPoint(focalPoint);
    parts.push(`fp${x}x${y}`);
  }
  // PNG is written losslessly: the quality does not change it, so it does not make another variant.
  if (format !== 'png') parts.push(`q${request.quality}`);
  return `${parts.join('-')}.${EXTENSION[format]}`;
}

/**
 * The focal point as the name shows it and the render uses it: clamped to 0..1, 4 decimals, so that the bytes kept
 * under a name are the ones that name describes.
 */
export function normaliseFocalPoint(focalPoint: FocalPoint): FocalPoint {
  return { x: coordinate(focalPoint.x), y: coordinate(focalPoint.y) };
}

function coordinate(value: number): number {
  if (!Number.isFinite(value)) return 0.5;
  return Math.round(Math.min(1, Math.max(0, value)) * 10_000) / 10_000;
}
