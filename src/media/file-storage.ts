// Assets' bytes in a local directory (`file:<dir>`, docs/media.md): a key is a path under the directory.
// Objects appear whole or not at all: each is written under a temporary name beside its place, then linked there.
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, mkdir, open, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type { ByteRange, Storage, StoredObject } from './storage.js';

/**
 * Throws unless `key` is a key the service could have made: relative, with forward slashes, no `..`, no NUL. Keys never
 * come from a filename, so this guards against a bug, not a user; both backends apply it so that they accept the same
 * keys.
 */
export function checkKey(key: string, what = 'key'): void {
  if (key === '' || key.startsWith('/') || key.includes('..') || key.includes('\\') || key.includes('\0'))
    throw new Error(`Storage: invalid ${what} ${JSON.stringify(key)}`);
}

/** Throws unless `range` is a range of whole bytes, start first. */
export function checkRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start)
    throw new RangeError(`Storage: invalid byte range ${start}-${end}`);
}

export class FileStorage implements Storage {
  readonly description: string;
  private readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
    this.description = `file:${this.root}`;
  }

  async putFile(key: string, path: string, _contentType: string): Promise<void> {
    const target = this.pathOf(key);
    if (await exists(target)) return;
    await this.publish(target, (temp) => copyFile(path, temp, constants.COPYFILE_FICLONE));
  }

  async putBytes(key: string, bytes: Buffer, _contentType: string): Promise<void> {
    const target = this.pathOf(key);
    if (await exists(target)) return;
    await this.publish(target, (temp) => writeFile(temp, bytes, { flag: 'wx' }));
  }

  async head(key: string): Promise<StoredObject | null> {
    const found = await statFile(this.pathOf(key));
    return found ? { size: found.size } : null;
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    if (range) checkRange(range);
    let handle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return null;
      throw error;
    }
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      return null;
    }
    // The stream closes the handle when it ends or is destroyed.
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.pathOf(key));
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    checkKey(prefix, 'prefix');
    const slash = prefix.lastIndexOf('/');
    const folder = join(this.root, prefix.slice(0, slash + 1));
    const namePrefix = prefix.slice(slash + 1);
    if (namePrefix === '') {
      await rm(folder, { recursive: true, force: true });
      return;
    }
    let names: string[];
    try {
      names = await readdir(folder);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    const matching = names.filter((name) => name.startsWith(namePrefix));
    await Promise.all(matching.map((name) => rm(join(folder, name), { recursive: true, force: true })));
  }

  async close(): Promise<void> {}

  private pathOf(key: string): string {
    checkKey(key);
    const path = join(this.root, key);
    // checkKey already refuses what could climb out; this states the invariant.
    if (!path.startsWith(this.root + sep)) throw new Error(`Storage: invalid key ${JSON.stringify(key)}`);
    return path;
  }

  /** Writes a temporary file beside `target` with `write`, then puts it at `target` unless something is there already. */
  private async publish(target: string, write: (temp: string) => Promise<void>): Promise<void> {
    await mkdir(dirname(target), { recursive: true });
    const temp = join(dirname(target), `.tmp-${randomUUID()}`);
    try {
      await write(temp);
      await placeWithoutReplacing(temp, target);
    } finally {
      await rm(temp, { force: true });
    }
  }
}

/** link() fails when the target exists, so a concurrent writer's object is never replaced (nor half-seen). */
async function placeWithoutReplacing(temp: string, target: string): Promise<void> {
  try {
    await link(temp, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    // A file system without hard links: rename is as atomic, and a content never changes under its key.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') return rename(temp, target);
    throw error;
  }
}

async function statFile(path: string): Promise<{ size: number } | null> {
  try {
    const found = await stat(path);
    return found.isFile() ? found : null;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return (await statFile(path)) !== null;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
