// A Storage (src/media/storage.ts) over a Map, for unit tests of what stands on storage (variants); the real storages
// (file:, s3://) have their own tests. It counts its calls, so that a test can tell that something was not read.
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { ByteRange, Storage, StoredObject } from '../../src/media/storage.js';

export interface MemoryObject {
  bytes: Buffer;
  contentType: string;
}

export class MemoryStorage implements Storage {
  readonly description = 'memory:';
  readonly objects = new Map<string, MemoryObject>();
  readonly calls = { putFile: 0, putBytes: 0, head: 0, read: 0, delete: 0, deletePrefix: 0 };

  async putFile(key: string, path: string, contentType: string): Promise<void> {
    this.calls.putFile += 1;
    const bytes = await readFile(path);
    if (!this.objects.has(key)) this.objects.set(key, { bytes, contentType });
  }

  async putBytes(key: string, bytes: Buffer, contentType: string): Promise<void> {
    this.calls.putBytes += 1;
    if (!this.objects.has(key)) this.objects.set(key, { bytes: Buffer.from(bytes), contentType });
  }

  async head(key: string): Promise<StoredObject | null> {
    this.calls.head += 1;
    const object = this.objects.get(key);
    return object ? { size: object.bytes.length } : null;
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    this.calls.read += 1;
    const object = this.objects.get(key);
    if (!object) return null;
    const bytes = range ? object.bytes.subarray(range.start, range.end + 1) : object.bytes;
    return Readable.from([bytes]);
  }

  async delete(key: string): Promise<void> {
    this.calls.delete += 1;
    this.objects.delete(key);
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.calls.deletePrefix += 1;
    for (const key of [...this.objects.keys()]) if (key.startsWith(prefix)) this.objects.delete(key);
  }

  async close(): Promise<void> {}
}
