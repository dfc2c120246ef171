// The media library (docs/media.md): uploads stored once per workspace by content, the asset rows, their changes
// and deletes (guarded by the records that hold them), and signed URLs of private assets.
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  checkAccess,
  checkAlt,
  checkAssetSort,
  checkAssetType,
  checkExpiresIn,
  checkFilename,
  checkFocalPoint,
  checkTags,
  uploadFilename,
  ASSET_LIMITS,
} from '../domain/asset-input.js';
import { ServiceError } from '../domain/errors.js';
import { pageBounds } from '../domain/listing.js';
import { DEFAULT_LOCALE } from '../domain/locale.js';
import { newId } from '../ids.js';
import { discardIngested, ingestStream, type IngestedFile } from '../media/ingest.js';
import { contentKey, variantPrefix, type Storage } from '../media/storage.js';
import type { AssetChange, Store, StoredAsset } from '../store/store.js';
import type { Actor } from './actor.js';
import type { AssetUrls } from './asset-urls.js';

export type { StoredAsset };

export interface AssetList {
  total: number;
  hasMore: boolean;
  items: StoredAsset[];
}

/** What the client says of an upload besides its bytes (multipart parts or tus metadata), unchecked. */
export interface UploadDetails {
  filename?: string | null;
  alt?: unknown;
  tags?: unknown;
}

export interface AssetServiceOptions {
  /** Where uploads are written while they arrive (a local directory). */
  tempDir: string;
  maxUploadBytes: number;
}

export class AssetService {
  constructor(
    private readonly store: Store,
    readonly storage: Storage,
    readonly urls: AssetUrls,
    readonly options: AssetServiceOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Stores an upload and its row. */
  async upload(actor: Actor, source: Readable, details: UploadDetails): Promise<StoredAsset> {
    return this.storeReceived(actor, await this.receive(source), details);
  }

  /** Writes an upload's bytes to a local file, measured, hashed and typed (nothing stored yet). */
  receive(source: Readable): Promise<IngestedFile> {
    return ingestStream(source, { tempDir: this.options.tempDir, maxBytes: this.options.maxUploadBytes });
  }

  /** Stores a received file and its row (its details checked first); the local file is removed either way. */
  async storeReceived(actor: Actor, file: IngestedFile, details: UploadDetails): Promise<StoredAsset> {
    try {
      const { alt, tags } = await this.checkDetails(actor.workspaceId, details);
      await this.storage.putFile(contentKey(actor.workspaceId, file.sha256), file.path, file.mimeType);
      return await this.store.assets.create({
        id: newId(),
        workspaceId: actor.workspaceId,
        filename: uploadFilename(details.filename),
        mimeType: file.mimeType,
        type: file.type,
        size: file.size,
        width: file.width,
        height: file.height,
        blurhash: file.blurhash,
        sha256: file.sha256,
        alt,
        tags,
        access: 'public',
        signingKey: randomBytes(32).toString('base64url'),
        createdAt: this.now(),
        userId: actor.userId,
      });
    } finally {
      await discardIngested(file);
    }
  }

  /** An upload's alt text and tags, checked (a resumable upload checks them at creation, before its bytes). */
  async checkDetails(workspaceId: string, details: UploadDetails): Promise<Pick<StoredAsset, 'alt' | 'tags'>> {
    const defaultLocale = await this.defaultLocale(workspaceId);
    const alt = details.alt === undefined || details.alt === '' ? null : checkAlt(details.alt, 'alt', defaultLocale);
    const tags = details.tags === undefined ? [] : checkTags(details.tags, 'tags');
    return { alt, tags };
  }

  get(workspaceId: string, id: string): Promise<StoredAsset | null> {
    return this.store.assets.get(workspaceId, id);
  }

  async list(
    workspaceId: string,
    args: {
      limit?: number | null;
      offset?: number | null;
      search?: string | null;
      type?: string | null;
      tags?: string[] | null;
      sort?: string | null;
    },
  ): Promise<AssetList> {
    const { limit, offset } = pageBounds(args);
    const search = args.search?.trim() || null;
    if (search && search.length > ASSET_LIMITS.maxSearchLength) {
      throw new ServiceError('BAD_USER_INPUT', `search: at most ${ASSET_LIMITS.maxSearchLength} characters`, { field: 'search' });
    }
    const type = args.type === null || args.type === undefined ? null : checkAssetType(args.type, 'type');
    const tags = args.tags && args.tags.length > 0 ? checkTags(args.tags, 'tags') : null;
    const page = await this.store.assets.list(workspaceId, {
      limit,
      offset,
      search,
      type,
      tags,
      sort: checkAssetSort(args.sort),
    });
    return { ...page, hasMore: offset + page.items.length < page.total };
  }

  async update(actor: Actor, input: Record<string, unknown>): Promise<StoredAsset> {
    const id = typeof input.id === 'string' ? input.id : '';
    const change: AssetChange = {};
    if (input.filename !== undefined) change.filename = checkFilename(input.filename, 'input.filename');
    if (input.alt !== undefined) change.alt = checkAlt(input.alt, 'input.alt', await this.defaultLocale(actor.workspaceId));
    if (input.tags !== undefined && input.tags !== null) change.tags = checkTags(input.tags, 'input.tags');
    if (input.focalPoint !== undefined) change.focalPoint = checkFocalPoint(input.focalPoint, 'input.focalPoint');
    if (input.access !== undefined && input.access !== null) change.access = checkAccess(input.access, 'input.access');
    const updated = await this.store.assets.update(actor.workspaceId, id, change, this.now());
    if (!updated) throw new ServiceError('NOT_FOUND', 'input.id: asset not found', { field: 'input.id' });
    return updated;
  }

  /** Deletes an asset; its stored bytes and variants go when no other asset of the workspace has the same content. */
  async delete(actor: Actor, id: string, force: boolean): Promise<StoredAsset> {
    const outcome = await this.store.assets.delete(actor.workspaceId, id, force, actor.userId);
    if (outcome === null) throw new ServiceError('NOT_FOUND', 'id: asset not found', { field: 'id' });
    if ('usedBy' in outcome) {
      const [first] = outcome.usedBy;
      throw new ServiceError(
        'CONFLICT',
        `id: the asset is used by ${outcome.usedBy.length === 1 ? 'a record' : `${outcome.usedBy.length} records`} (model "${first!.modelSlug}", field "${first!.fieldKey}"); delete with force: true to remove it from them`,
        { field: 'id', usedBy: outcome.usedBy.slice(0, 20) },
      );
    }
    if (!outcome.contentStillUsed) await this.forgetContent(actor.workspaceId, outcome.deleted.sha256);
    return outcome.deleted;
  }

  async signedUrl(workspaceId: string, id: string, expiresIn: number, requestOrigin?: string): Promise<string> {
    const seconds = checkExpiresIn(expiresIn);
    const asset = await this.store.assets.get(workspaceId, id);
    if (!asset) throw new ServiceError('NOT_FOUND', 'id: asset not found', { field: 'id' });
    return this.urls.signedUrl(asset, Math.floor(this.now() / 1000) + seconds, requestOrigin);
  }

  private async forgetContent(workspaceId: string, sha256: string): Promise<void> {
    await this.storage.delete(contentKey(workspaceId, sha256));
    await this.storage.deletePrefix(variantPrefix(workspaceId, sha256));
  }

  private async defaultLocale(workspaceId: string): Promise<string> {
    const workspace = await this.store.tenancy.findWorkspace(workspaceId);
    return workspace?.defaultLocale ?? DEFAULT_LOCALE;
  }
}
