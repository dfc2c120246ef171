// An upload's way in (docs/media.md): its bytes stream to a temporary file while their SHA-256 and size are
// counted, then the file is typed from its content and, for an image, measured. Memory stays flat whatever the size.
// The caller stores the file (storage.putFile(contentKey(workspaceId, sha256), path, mimeType)) and then discards it.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AssetType } from '../shared/media.js';
import { detectType } from './detect-type.js';
import { MediaInputError, UploadTooLarge } from './errors.js';
import { imageInfo } from './image-info.js';

export interface IngestedFile {
  /** The temporary file holding the bytes, until `discardIngested`. */
  path: string;
  size: number;
  /** Hex. */
  sha256: string;
  mimeType: string;
  type: AssetType;
  width: number | null;
  height: number | null;
  blurhash: string | null;
  animated: boolean;
}

export interface IngestOptions {
  /** Where the temporary file is written; the same file system as a `file:` storage lets putFile rename it. */
  tempDir: string;
  maxBytes: number;
}

/** Streams `source` into a temporary file and describes it. On any error, the temporary file is gone. */
export async function ingestStream(source: Readable, options: IngestOptions): Promise<IngestedFile> {
  const path = join(options.tempDir, `upload-${randomUUID()}.part`);
  try {
    const { size, sha256 } = await writeCounted(source, path, options.maxBytes);
    if (size === 0) throw new MediaInputError('file', 'the file is empty');
    const { mimeType, type } = await detectType(path);
    const image =
      type === 'image' ? await imageInfo(path, mimeType) : { width: null, height: null, blurhash: null, animated: false };
    return { path, size, sha256, mimeType, type, ...image };
  } catch (error) {
    await removeFile(path);
    throw error;
  }
}

/** Removes the temporary file of an ingested upload (once stored, or when it is not wanted). */
export async function discardIngested(file: Pick<IngestedFile, 'path'>): Promise<void> {
  await removeFile(file.path);
}

/** The same as `discardIngested`. */
export const discard = discardIngested;

async function writeCounted(source: Readable, path: string, maxBytes: number): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) {
        callback(new UploadTooLarge(maxBytes));
        return;
      }
      hash.update(bytes);
      callback(null, bytes);
    },
  });
  const file = createWriteStream(path, { flags: 'wx' });
  try {
    // pipeline destroys every stream, the source included, when one of them fails.
    await pipeline(source, counter, file);
  } catch (error) {
    // The file is opened asynchronously: wait until it is closed, so that it is not created after it was removed.
    if (!file.closed) await once(file, 'close');
    throw error;
  }
  return { size, sha256: hash.digest('hex') };
}

async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
