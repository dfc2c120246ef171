// What an uploaded image is (docs/media.md): its size, whether it is animated, and a blurhash placeholder.
// The pixel limit is checked on the header alone, before any pixel is decoded, so a small file that claims a huge
// image (a "pixel bomb") costs no memory.
import sharp, { type Metadata } from 'sharp';
import { encode } from 'blurhash';
import { MAX_IMAGE_PIXELS } from '../shared/media.js';
import { MediaInputError } from './errors.js';
import { SVG_MIME_TYPE } from './detect-type.js';

export interface ImageInfo {
  width: number | null;
  height: number | null;
  blurhash: string | null;
  animated: boolean;
}

/** The blurhash is encoded from a resize this wide (or high), which is plenty for 4x3 components. */
const BLURHASH_SIZE = 32;
const BLURHASH_COMPONENTS_X = 4;
const BLURHASH_COMPONENTS_Y = 3;

const TOO_LARGE = 'image too large';
const UNDECODABLE = 'the image cannot be decoded';

/** The size (as displayed, after EXIF orientation), animation and blurhash of the image at `path`. */
export async function imageInfo(path: string, mimeType: string): Promise<ImageInfo> {
  if (mimeType === SVG_MIME_TYPE) return svgInfo(path);
  const metadata = await readMetadata(path);
  const { width, height } = metadata.autoOrient;
  if (!(width > 0 && height > 0)) throw new MediaInputError('file', UNDECODABLE);
  if (width * height > MAX_IMAGE_PIXELS) throw new MediaInputError('file', TOO_LARGE);
  return { width, height, animated: (metadata.pages ?? 1) > 1, blurhash: await blurhashOf(path) };
}

async function readMetadata(path: string): Promise<Metadata> {
  try {
    return await sharp(path, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
  } catch (error) {
    throw decodingError(error);
  }
}

/** Decodes the first frame, shrunk (JPEG and WebP shrink while decoding), into the few pixels a blurhash needs. */
async function blurhashOf(path: string): Promise<string> {
  try {
    const { data, info } = await sharp(path, { limitInputPixels: MAX_IMAGE_PIXELS, autoOrient: true })
      .resize(BLURHASH_SIZE, BLURHASH_SIZE, { fit: 'inside' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const pixels = new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);
    return encode(pixels, info.width, info.height, BLURHASH_COMPONENTS_X, BLURHASH_COMPONENTS_Y);
  } catch (error) {
    throw decodingError(error);
  }
}

function decodingError(error: unknown): MediaInputError {
  const message = error instanceof Error ? error.message : '';
  return new MediaInputError('file', /pixel limit/i.test(message) ? TOO_LARGE : UNDECODABLE);
}

/** An SVG is served as it is and never rendered: its size when it states one, and no placeholder. */
async function svgInfo(path: string): Promise<ImageInfo> {
  try {
    // Reading the header parses the document without rendering it; a drawing may state any size.
    const { width, height } = await sharp(path, { limitInputPixels: false }).metadata();
    return { width: width ?? null, height: height ?? null, blurhash: null, animated: false };
  } catch {
    return { width: null, height: null, blurhash: null, animated: false };
  }
}
