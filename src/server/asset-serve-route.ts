// `GET` and `HEAD /assets/{workspaceId}/{assetId}/{filename}` (docs/media.md): an asset's bytes, or an image
// transform of them (made once, kept), with ranges, ETags, long caching of public assets, and the headers that keep
// an uploaded file from ever running script on this origin. The filename in the path is for people; the id decides.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../auth/authenticate.js';
import { findActiveSession } from '../auth/sessions.js';
import { ServiceError } from '../domain/errors.js';
import { requestedRange } from '../media/byte-range.js';
import { isTransformable } from '../media/render.js';
import type { RenderQueue } from '../media/render-queue.js';
import { contentKey } from '../media/storage.js';
import { parseTransform } from '../media/transform-params.js';
import { getOrMakeVariant } from '../media/variants.js';
import type { AssetService } from '../services/asset-service.js';
import { signatureHolds } from '../services/asset-urls.js';
import type { Store, StoredAsset } from '../store/store.js';
import { AnimationCheck } from '../media/animation-check.js';
import { sendMediaError } from './media-errors.js';

/** Types a browser may show in the page: anything else is a download in a sandbox. SVG can hold script. */
const INLINE_TYPES = /^(image\/(jpeg|png|webp|avif|gif)|video\/(mp4|webm)|audio\/(mpeg|ogg|wav)|application\/pdf)$/;

export interface AssetServeOptions {
  store: Store;
  assets: AssetService;
  queue: RenderQueue;
}

interface Served {
  key: string;
  size: number;
  mimeType: string;
  etag: string;
  variesByAccept: boolean;
}

export function registerAssetServeRoute(app: FastifyInstance, { store, assets, queue }: AssetServeOptions): void {
  const animation = new AnimationCheck(assets.storage);
  app.route({
    method: ['GET', 'HEAD'],
    url: '/assets/:workspaceId/:assetId/:filename',
    handler: async (request, reply) => {
      const { workspaceId, assetId } = request.params as { workspaceId: string; assetId: string };
      try {
        const asset = await assets.get(workspaceId, assetId);
        if (!asset) throw new ServiceError('NOT_FOUND', 'asset not found');
        await checkAccess(store, request, asset);
        const served = await whatToServe(
          request,
          asset,
          async (transform) => {
            const variant = await getOrMakeVariant({
              storage: assets.storage,
              queue,
              workspaceId,
              sha256: asset.sha256,
              originalKey: contentKey(workspaceId, asset.sha256),
              originalMime: asset.mimeType,
              request: transform,
              focalPoint: asset.focalPoint,
            });
            return { key: variant.key, size: variant.size, mimeType: variant.mimeType };
          },
          animation,
        );
        return await send(request, reply, assets, asset, served);
      } catch (error) {
        return sendMediaError(request, reply, error);
      }
    },
  });
}

type MakeVariant = (
  transform: NonNullable<ReturnType<typeof parseTransform>>,
) => Promise<Omit<Served, 'etag' | 'variesByAccept'>>;

async function whatToServe(
  request: FastifyRequest,
  asset: StoredAsset,
  makeVariant: MakeVariant,
  animation: AnimationCheck,
): Promise<Served> {
  const query = request.query as Record<string, string | string[] | undefined>;
  const transform = parseTransform(query, request.headers.accept);
  const original = {
    key: contentKey(asset.workspaceId, asset.sha256),
    size: asset.size,
    mimeType: asset.mimeType,
    etag: `"${asset.sha256}"`,
    variesByAccept: false,
  };
  if (!transform || asset.type !== 'image') return original;
  if (!isTransformable(asset.mimeType, await animation.isAnimated(asset))) return original;
  const variant = await makeVariant(transform);
  const name = variant.key.slice(variant.key.lastIndexOf('/') + 1);
  return { ...variant, etag: `"${asset.sha256}-${name}"`, variesByAccept: transform.variesByAccept };
}

/** A private asset: a valid signed URL, an API token of its workspace, or a signed-in member's session. */
async function checkAccess(store: Store, request: FastifyRequest, asset: StoredAsset): Promise<void> {
  if (asset.access === 'public') return;
  const { expires, sig } = request.query as { expires?: unknown; sig?: unknown };
  if (expires !== undefined || sig !== undefined) {
    const verdict =
      typeof expires === 'string' && typeof sig === 'string'
        ? signatureHolds(asset, expires, sig, Math.floor(Date.now() / 1000))
        : 'invalid';
    if (verdict === 'valid') return;
    throw new ServiceError('FORBIDDEN', verdict === 'expired' ? 'The signed URL has expired' : 'The signed URL is not valid');
  }
  if (request.headers.authorization !== undefined) {
    await authenticate(store, request.headers.authorization, asset.workspaceId);
    return;
  }
  const active = await findActiveSession(store, request);
  if (active && (await store.tenancy.findMember(asset.workspaceId, active.session.userId))) return;
  throw new ServiceError('UNAUTHENTICATED', 'Not authorized');
}

async function send(request: FastifyRequest, reply: FastifyReply, assets: AssetService, asset: StoredAsset, served: Served) {
  reply.header('x-content-type-options', 'nosniff');
  reply.header('etag', served.etag);
  reply.header('cache-control', asset.access === 'public' ? 'public, max-age=31536000, immutable' : 'private, max-age=3600');
  if (served.variesByAccept) reply.header('vary', 'Accept');
  reply.header('accept-ranges', 'bytes');
  reply.header('content-type', served.mimeType);
  const inline = INLINE_TYPES.test(served.mimeType);
  reply.header(
    'content-disposition',
    `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(asset.filename)}`,
  );
  if (!inline) reply.header('content-security-policy', 'sandbox');
  if (matchesEtag(request.headers['if-none-match'], served.etag)) return reply.code(304).send();
  const range = requestedRange(request.headers.range, served.size);
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${served.size}`);
    return reply.code(416).send();
  }
  const length = range ? range.end - range.start + 1 : served.size;
  reply.header('content-length', String(length));
  if (range) {
    reply.code(206);
    reply.header('content-range', `bytes ${range.start}-${range.end}/${served.size}`);
  }
  if (request.method === 'HEAD') return reply.send();
  const body = await assets.storage.read(served.key, range ?? undefined);
  if (!body) throw new ServiceError('NOT_FOUND', 'asset not found');
  return reply.send(body);
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const candidate = tag.trim().replace(/^W\//, '');
    return candidate === etag || candidate === '*';
  });
}
