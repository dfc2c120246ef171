// Node only: a file on disk as the Blob an upload sends, read from disk as it is sent (never held in memory).
// Loaded by uploadAsset with a dynamic import only when it is given a path, so that the SDK's other modules stay
// usable in a browser.
import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ContentServiceError } from './errors.js';

/** The file at `path` as a Blob, and its name; BAD_USER_INPUT naming `file` when it cannot be read. */
export async function fileBlob(path: string): Promise<{ blob: Blob; filename: string }> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
    return { blob: await openAsBlob(path), filename: basename(path) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'not a file'
            : (error as Error).message;
    throw new ContentServiceError(`file: cannot read ${path}: ${reason}`, {
      code: 'BAD_USER_INPUT',
      field: 'file',
      cause: error,
    });
  }
}
