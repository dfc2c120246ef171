// The storage the service was started with (`--storage URL` / STORAGE_URL, docs/media.md).
import { isAbsolute, resolve } from 'node:path';
import { FileStorage } from './file-storage.js';
import { openS3Storage } from './s3-storage.js';
import type { Storage } from './storage.js';

const ACCEPTED_FORMS = '`file:<dir>` or `s3://<bucket>/<prefix>?endpoint=…&region=…&forcePathStyle=true`';

/** Opens `file:<dir>` (a relative dir is taken from `baseDir`, else the working directory) or `s3://…`. */
export async function openStorage(url: string, baseDir?: string): Promise<Storage> {
  if (url.startsWith('file:')) return new FileStorage(fileDirectory(url, baseDir));
  if (url.startsWith('s3://')) return openS3Storage(url);
  throw new Error(`STORAGE_URL ${JSON.stringify(url)} is not a storage URL: expected ${ACCEPTED_FORMS}`);
}

/** The directory of a `file:` storage URL (a relative one taken from `baseDir`, else the working directory). */
export function fileDirectory(url: string, baseDir?: string): string {
  let dir = url.slice('file:'.length);
  // file:///abs/dir and file://localhost/abs/dir are the URL forms of an absolute path.
  if (dir.startsWith('//')) dir = decodeURIComponent(dir.replace(/^\/\/(localhost)?(?=\/)/, ''));
  if (dir === '' || dir.startsWith('//'))
    throw new Error(`STORAGE_URL ${JSON.stringify(url)} names no directory: expected ${ACCEPTED_FORMS}`);
  return isAbsolute(dir) ? dir : resolve(baseDir ?? process.cwd(), dir);
}
