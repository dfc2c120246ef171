// The media library (docs/media.md): uploads (`POST /assets`, multipart) and the admin API's `asset` calls. A base
// class of ContentClient, so that `client.uploadAsset(…)` is a method of the client while its code lives here. It
// runs in a browser too: only a path (`{ path }`) loads the Node-only asset-files.ts, with a dynamic import.
import { ContentServiceError } from './errors.js';
import type { RawBody, Transport } from './http.js';
import { multipartBody, type MultipartFile } from './multipart.js';
import { ScheduleCalls } from './schedules.js';
import type { Asset, AssetKind, AssetList, DeletionResult } from './types.js';

/**
 * What uploadAsset sends: bytes (a Buffer is a Uint8Array), a Blob or File, a stream (read once: see
 * `UploadAssetOptions.size`), or on Node a file by its path.
 */
export type AssetSource = Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array> | { path: string };

export interface UploadProgress {
  /** Bytes of the file sent so far. */
  loaded: number;
  /** The file's size, when known (not for a stream without `size`). */
  total: number | undefined;
}

export interface UploadAssetOptions {
  /** The name people see (any folder in it is dropped by the server); default the path's or File's name. */
  filename?: string;
  /** Alt text: an object of locale code to text, or one text for the workspace's default locale. */
  alt?: Record<string, string> | string;
  tags?: readonly string[];
  /** Told the bytes sent as the upload goes. */
  onProgress?: (progress: UploadProgress) => void;
  /** A stream's size in bytes, when known: sent as Content-Length, so the server refuses too large a file at once. */
  size?: number;
  /** Time allowed for the whole upload, in ms (default the client's `timeoutMs`). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ListAssetsOptions {
  /** In the filename, tags and alt text, case-insensitive. */
  search?: string;
  type?: AssetKind | (string & {});
  /** Only assets holding all of these tags. */
  tags?: readonly string[];
  /** `createdAt_desc` (default), `createdAt_asc`, `filename_asc|desc`, `size_asc|desc`. */
  sort?: string;
  /** At most 100 (default 20). */
  limit?: number;
  offset?: number;
  signal?: AbortSignal;
}

export interface UpdateAssetInput {
  id: string;
  filename?: string;
  /** Locale code → text, or one text for the default locale; null clears it. */
  alt?: Record<string, string> | string | null;
  tags?: readonly string[];
  /** 0..1 from the top left; null clears it. */
  focalPoint?: { x: number; y: number } | null;
  access?: 'public' | 'private';
}

export const ASSET_FIELDS =
  'id filename mimeType type size width height blurhash sha256 alt tags focalPoint { x y } access url usage createdAt createdBy';

/** The asset calls of the SDK; ContentClient extends it. */
export abstract class AssetCalls extends ScheduleCalls {
  constructor(protected readonly transport: Transport) {
    super();
  }

  /**
   * Uploads one file to the media library (`POST /assets`, multipart) and answers the asset: its type is detected
   * from the content, images get their size and blurhash. Editor and above; one write of the write budget. A 429 is
   * waited out and the upload sent again, except for a stream, which cannot be read twice (RATE_LIMITED then). An
   * upload is a write: with no answer (network, timeout) it is not sent again, the error says the outcome is unknown.
   */
  async uploadAsset(file: AssetSource, options: UploadAssetOptions = {}): Promise<Asset> {
    const part = await filePart(file, options);
    const fields: [string, string][] = [];
    if (options.alt !== undefined)
      fields.push(['alt', typeof options.alt === 'string' ? options.alt : JSON.stringify(options.alt)]);
    if (options.tags !== undefined) fields.push(['tags', JSON.stringify(options.tags)]);
    let attempts = 0;
    const body: RawBody = {
      make: () => {
        attempts += 1;
        const total = part.kind === 'blob' ? part.blob.size : part.size;
        const onBytes = options.onProgress ? (loaded: number) => options.onProgress!({ loaded, total }) : undefined;
        const made = multipartBody(fields, part, onBytes);
        const headers: Record<string, string> = { 'content-type': made.contentType };
        if (made.length !== undefined) headers['content-length'] = String(made.length);
        return { body: made.body, headers };
      },
      resendable: () => part.kind === 'blob' || attempts === 0,
    };
    const answer = await this.transport.send<{ asset: Asset }>('/assets', body, {
      operation: 'uploadAsset',
      idempotent: false,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    return answer.asset;
  }

  /** One page of the media library (`limit` at most 100), newest first unless `sort` says otherwise. */
  async listAssets(options: ListAssetsOptions = {}): Promise<AssetList> {
    const query = `query($limit: Int, $offset: Int, $search: String, $type: String, $tags: [String!], $sort: String) {
      asset { list(limit: $limit, offset: $offset, search: $search, type: $type, tags: $tags, sort: $sort) {
        total hasMore items { ${ASSET_FIELDS} } } } }`;
    const { signal, tags, ...rest } = options;
    const variables = {
      limit: rest.limit ?? null,
      offset: rest.offset ?? null,
      search: rest.search ?? null,
      type: rest.type ?? null,
      tags: tags ? [...tags] : null,
      sort: rest.sort ?? null,
    };
    return (await this.read<{ asset: { list: AssetList } }>('listAssets', query, variables, signal)).asset.list;
  }

  /** One asset, or null (also for an asset of another workspace). */
  async getAsset(id: string, signal?: AbortSignal): Promise<Asset | null> {
    const query = `query($id: ID!) { asset { get(id: $id) { ${ASSET_FIELDS} } } }`;
    return (await this.read<{ asset: { get: Asset | null } }>('getAsset', query, { id }, signal)).asset.get;
  }

  /** Changes any of filename, alt, tags, focal point and access; the bytes of an asset never change. One write. */
  async updateAsset(input: UpdateAssetInput, signal?: AbortSignal): Promise<Asset> {
    const query = `mutation($input: UpdateAssetInput!) { asset { update(input: $input) { ${ASSET_FIELDS} } } }`;
    const variables = { input: { ...input, ...(input.tags ? { tags: [...input.tags] } : {}) } };
    return (await this.write<{ asset: { update: Asset } }>('updateAsset', query, variables, signal)).asset.update;
  }

  /**
   * Deletes an asset. CONFLICT naming a model and field while records' media fields hold it, unless `force`, which
   * removes it from those records first (each a new revision). One write.
   */
  async deleteAsset(id: string, options: { force?: boolean; signal?: AbortSignal } = {}): Promise<DeletionResult> {
    const query = `mutation($id: ID!, $force: Boolean) { asset { delete(id: $id, force: $force) { id deleted } } }`;
    const variables = { id, force: options.force ?? null };
    return (await this.write<{ asset: { delete: DeletionResult } }>('deleteAsset', query, variables, options.signal)).asset
      .delete;
  }

  /** The asset's URL, signed to work without a token for `expiresIn` seconds (1 to 604800): for private assets. */
  async signedAssetUrl(id: string, expiresIn: number, signal?: AbortSignal): Promise<string> {
    const query = `query($id: ID!, $expiresIn: Int!) { asset { signedUrl(id: $id, expiresIn: $expiresIn) } }`;
    return (await this.read<{ asset: { signedUrl: string } }>('signedAssetUrl', query, { id, expiresIn }, signal)).asset
      .signedUrl;
  }

  protected read<T>(operation: string, query: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    return this.transport.request<T>(query, variables, { operation, idempotent: true, ...(signal ? { signal } : {}) });
  }

  protected write<T>(operation: string, query: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    return this.transport.request<T>(query, variables, { operation, idempotent: false, ...(signal ? { signal } : {}) });
  }
}

/** The file part of an upload, with its name: the option's, else the path's or the File's. */
async function filePart(file: AssetSource, options: UploadAssetOptions): Promise<MultipartFile> {
  const named = (fallback: string | undefined): string => {
    const filename = options.filename ?? fallback;
    if (filename === undefined || filename.trim() === '') {
      throw new ContentServiceError('filename: required (the name people see, such as "photo.jpg")', {
        code: 'BAD_USER_INPUT',
        field: 'filename',
      });
    }
    return filename;
  };
  if (file instanceof ReadableStream) {
    return { kind: 'stream', stream: file, filename: named(undefined), size: options.size };
  }
  if (file instanceof Blob) {
    const own = typeof (file as File).name === 'string' && (file as File).name !== '' ? (file as File).name : undefined;
    return { kind: 'blob', blob: file, filename: named(own) };
  }
  if (file instanceof Uint8Array || file instanceof ArrayBuffer) {
    return { kind: 'blob', blob: new Blob([file as Uint8Array<ArrayBuffer>]), filename: named(undefined) };
  }
  if (typeof file === 'object' && file !== null && typeof (file as { path?: unknown }).path === 'string') {
    const { fileBlob } = await import('./asset-files.js');
    const { blob, filename } = await fileBlob(file.path);
    return { kind: 'blob', blob, filename: named(filename) };
  }
  throw new ContentServiceError('file: expected bytes (Uint8Array or Buffer), a Blob, a ReadableStream or { path }', {
    code: 'BAD_USER_INPUT',
    field: 'file',
  });
}
