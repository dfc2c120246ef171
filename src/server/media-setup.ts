// The media library's parts for one server (docs/media.md): the storage the service was started with, the asset
// service over it, and the bounded queue of image renders.
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { openStorage } from '../media/open-storage.js';
import { RenderQueue } from '../media/render-queue.js';
import { AssetService } from '../services/asset-service.js';
import { AssetUrls } from '../services/asset-urls.js';
import type { Store } from '../store/store.js';
import { DEFAULT_MAX_UPLOAD_MB } from '../shared/media.js';

export interface MediaConfig {
  /** `file:<dir>` or `s3://bucket/prefix?…` (--storage, env STORAGE_URL). */
  storageUrl: string;
  /** --max-upload-mb, env MAX_UPLOAD_MB. */
  maxUploadMb: number;
  /** Image renders at once (--transform-concurrency, env TRANSFORM_CONCURRENCY; default the core count). */
  transformConcurrency: number;
  /** Renders that may wait for a slot; past them a new size is answered 503 (env TRANSFORM_QUEUE). */
  transformQueue: number;
  /** The origin assets' URLs start with (--public-url, env PUBLIC_URL); null: the origin each request came to. */
  publicUrl: string | null;
  /** Hours an unfinished resumable (tus) upload is kept after it began (env UPLOAD_EXPIRY_HOURS; default 24). */
  uploadExpiryHours: number;
}

export interface Media {
  assets: AssetService;
  queue: RenderQueue;
  close(): Promise<void>;
}

/** Where assets go by default: `assets` beside the SQLite file, or ./data/assets for PostgreSQL. */
export function defaultStorageUrl(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    if (path && path !== ':memory:') return `file:${join(dirname(resolve(path)), 'assets')}`;
  }
  return 'file:./data/assets';
}

export const DEFAULT_UPLOAD_EXPIRY_HOURS = 24;

export function defaultMediaConfig(databaseUrl: string): MediaConfig {
  const cores = availableParallelism();
  return {
    storageUrl: defaultStorageUrl(databaseUrl),
    maxUploadMb: DEFAULT_MAX_UPLOAD_MB,
    transformConcurrency: cores,
    transformQueue: cores * 16,
    publicUrl: null,
    uploadExpiryHours: DEFAULT_UPLOAD_EXPIRY_HOURS,
  };
}

export async function openMedia(store: Store, config: MediaConfig): Promise<Media> {
  const storage = await openStorage(config.storageUrl);
  const tempDir = await mkdtemp(join(tmpdir(), 'content-service-uploads-'));
  const assets = new AssetService(store, storage, new AssetUrls(config.publicUrl), {
    tempDir,
    maxUploadBytes: config.maxUploadMb * 1024 * 1024,
  });
  const queue = new RenderQueue({ concurrency: config.transformConcurrency, maxQueued: config.transformQueue });
  return { assets, queue, close: () => storage.close() };
}

/** For a server built without media settings (tests): file storage in a fresh temporary directory. */
export async function temporaryMediaConfig(): Promise<MediaConfig> {
  const dir = await mkdtemp(join(tmpdir(), 'content-service-assets-'));
  return { ...defaultMediaConfig('postgres://'), storageUrl: `file:${dir}` };
}
