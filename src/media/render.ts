// Making one variant of an image with sharp (docs/media.md, "Serving"): oriented by its EXIF, resized by the fit asked
// for (never enlarged), cropped around the focal point for `cover`, written in the format asked for.
import type { Readable } from 'node:stream';
import sharp, { type Sharp } from 'sharp';
import { MAX_IMAGE_PIXELS, type FocalPoint } from '../shared/media.js';
import type { TransformRequest } from './transform-params.js';
import { formatMimeType, normaliseFocalPoint, renderFormat, usesFocalPoint, type RenderFormat } from './variant-key.js';

/** The image types a variant is made of; the others (SVG, PDF, video…) are served as they are. */
const TRANSFORMABLE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif']);

/** Whether variants can be made of a file of this type: not SVG, not an animated image, not a non-image. */
export function isTransformable(mimeType: string, animated: boolean): boolean {
  return TRANSFORMABLE.has(mimeType) && !animated;
}

const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };
const WHITE = { r: 255, g: 255, b: 255, alpha: 1 };

/** The original: a stream of its bytes, its bytes, or the path of a local file. */
export type RenderInput = Readable | Buffer | string;

export async function renderVariant(
  input: RenderInput,
  request: TransformRequest,
  focalPoint: FocalPoint | null,
  originalMime: string,
): Promise<{ bytes: Buffer; mimeType: string }> {
  const format = renderFormat(request, originalMime);
  // failOn 'error': a JPEG with a damaged tail still renders, as browsers show it.
  const image = sharp(await source(input), { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' }).rotate();
  await resize(image, request, focalPoint, format);
  // JPEG has no alpha: transparent pixels become white, not black.
  if (format === 'jpeg') image.flatten({ background: WHITE });
  encode(image, format, request.quality);
  return { bytes: await image.toBuffer(), mimeType: formatMimeType(format) };
}

/**
 * sharp gathers a stream's bytes in memory before it decodes them; gathering them here does no worse, and lets the
 * stream's own error reject the render (sharp would wait for a stream that failed).
 */
async function source(input: RenderInput): Promise<Buffer | string> {
  if (typeof input === 'string' || Buffer.isBuffer(input)) return input;
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

async function resize(image: Sharp, request: TransformRequest, focalPoint: FocalPoint | null, format: RenderFormat) {
  const { width, height, fit } = request;
  if (width === null && height === null) return;
  if (usesFocalPoint(request, focalPoint) && width !== null && height !== null) {
    await cropAround(image, width, height, normaliseFocalPoint(focalPoint));
    return;
  }
  image.resize(width, height, {
    fit,
    withoutEnlargement: true,
    background: format === 'jpeg' ? WHITE : TRANSPARENT,
  });
}

/**
 * `cover` around a focal point: scaled to the smallest size that covers width × height (never above the original's),
 * then the window of that size centred on the focal point, moved back inside the image where it would stick out.
 * An image smaller than the box is not enlarged: the window is then as much of the box as the image holds, as sharp's
 * own `cover` with `withoutEnlargement` gives.
 */
async function cropAround(image: Sharp, width: number, height: number, focalPoint: FocalPoint) {
  const oriented = (await image.metadata()).autoOrient;
  const scale = Math.min(1, Math.max(width / oriented.width, height / oriented.height));
  const scaledWidth = Math.max(1, Math.round(oriented.width * scale));
  const scaledHeight = Math.max(1, Math.round(oriented.height * scale));
  const windowWidth = Math.min(width, scaledWidth);
  const windowHeight = Math.min(height, scaledHeight);
  if (scale < 1) image.resize(scaledWidth, scaledHeight, { fit: 'fill' });
  image.extract({
    left: windowStart(focalPoint.x, scaledWidth, windowWidth),
    top: windowStart(focalPoint.y, scaledHeight, windowHeight),
    width: windowWidth,
    height: windowHeight,
  });
}

function windowStart(focus: number, size: number, window: number): number {
  return Math.min(size - window, Math.max(0, Math.round(focus * size - window / 2)));
}

function encode(image: Sharp, format: RenderFormat, quality: number): void {
  switch (format) {
    case 'jpeg':
      image.jpeg({ quality });
      return;
    case 'webp':
      image.webp({ quality });
      return;
    case 'avif':
      image.avif({ quality });
      return;
    case 'png':
      image.png();
      return;
    case 'gif':
      image.gif();
      return;
  }
}
