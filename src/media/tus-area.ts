// Where resumable (tus) uploads are kept while they arrive (docs/media.md, "Resumable uploads"): beside the assets, in
// the storage the service was started with, so that an unfinished upload survives a restart and every process on
// that storage can continue it. File storage: a tus FileStore in `<storage dir>/.tus/`. S3 storage: a tus S3Store on
// the same bucket, its objects under `<prefix>.tus/`. The tus packages (and the AWS SDK) are loaded only here.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { DataStore, KvStore } from '@tus/server';
import { fileDirectory } from './open-storage.js';
import { parseS3Url, s3ClientConfig } from './s3-storage.js';
import type { Storage } from './storage.js';

/** The folder of unfinished uploads, in the storage directory or under the bucket's prefix. */
export const TUS_FOLDER = '.tus';

export interface TusArea {
  datastore: DataStore;
  /** What comes before an upload's id (as its URL names it) in the datastore's ids: the S3 prefix, or nothing. */
  idPrefix: string;
  /** A finished upload's bytes. */
  read(id: string): Promise<Readable>;
  /** Removes everything the upload left, finished or not; nothing when there is none. */
  remove(id: string): Promise<void>;
  /** Removes the unfinished uploads past their expiry. */
  removeExpired(): Promise<void>;
}

/**
 * The area for `storageUrl` (`file:` or `s3://`); `storage` is the assets' storage opened on the same URL. An
 * unfinished upload expires `expiryMs` after it began (tus's expiration extension: `Upload-Expires`).
 */
export async function openTusArea(storageUrl: string, storage: Storage, expiryMs: number): Promise<TusArea> {
  if (storageUrl.startsWith('s3://')) return openS3Area(storageUrl, storage, expiryMs);
  const directory = join(fileDirectory(storageUrl), TUS_FOLDER);
  await mkdir(directory, { recursive: true });
  const { FileStore } = await import('@tus/file-store');
  const datastore = new FileStore({ directory, expirationPeriodInMilliseconds: expiryMs });
  return {
    datastore,
    idPrefix: '',
    read: (id) => Promise.resolve(datastore.read(id)),
    async remove(id) {
      await rm(join(directory, id), { force: true });
      try {
        await datastore.configstore.delete(id);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },
    removeExpired: async () => void (await datastore.deleteExpired()),
  };
}

async function openS3Area(storageUrl: string, storage: Storage, expiryMs: number): Promise<TusArea> {
  const location = parseS3Url(storageUrl);
  const { S3Store } = await import('@tus/s3-store');
  const datastore = new S3Store({
    // Read from the bucket on every request (no per-process copy), so that processes never disagree on an upload.
    cache: new NoCache(),
    expirationPeriodInMilliseconds: expiryMs,
    s3ClientConfig: { bucket: location.bucket, ...s3ClientConfig(location) },
  });
  const idPrefix = `${location.prefix}${TUS_FOLDER}/`;
  // The same objects as keys of the assets' storage, which prepends the prefix itself.
  const keyOf = (id: string) => `${TUS_FOLDER}/${id.slice(idPrefix.length)}`;
  const remove = async (id: string): Promise<void> => {
    try {
      // Aborts the multipart upload of an unfinished one.
      await datastore.remove(id);
    } catch {
      // Finished (no multipart upload left), or gone: the objects below are all there can be.
    }
    // The S3Store leaves the incomplete part (`.part`) behind, and a finished upload's object and `.info`.
    for (const suffix of ['', '.info', '.part']) await storage.delete(keyOf(id) + suffix);
  };
  const { S3Client, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const lister = new S3Client(s3ClientConfig(location));
  return {
    datastore,
    idPrefix,
    read: (id) => datastore.read(id),
    // Not the S3Store's own sweep: it needs ListMultipartUploads, which not every S3-compatible store has.
    async removeExpired() {
      let token: string | undefined;
      do {
        const page = await lister.send(
          new ListObjectsV2Command({ Bucket: location.bucket, Prefix: idPrefix, ContinuationToken: token }),
        );
        for (const { Key: key } of page.Contents ?? []) {
          if (!key?.endsWith('.info')) continue;
          const id = key.slice(0, -'.info'.length);
          const upload = await datastore.getUpload(id).catch(() => null);
          const began = Date.parse(upload?.creation_date ?? '');
          if (upload && upload.offset !== upload.size && began + expiryMs < Date.now()) await remove(id);
        }
        token = page.NextContinuationToken;
      } while (token);
    },
    remove,
  };
}

/** A cache that keeps nothing. */
class NoCache<T> implements KvStore<T> {
  get(): Promise<T | undefined> {
    return Promise.resolve(undefined);
  }

  set(): Promise<void> {
    return Promise.resolve();
  }

  delete(): Promise<void> {
    return Promise.resolve();
  }
}
