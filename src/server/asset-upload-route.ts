// `POST /assets` (docs/media.md): one file as multipart/form-data, with optional `alt` and `tags` parts, streamed to
// a local file (never held in memory), then stored once by content. Editor and above; one write of the budget.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticated } from '../auth/authenticate.js';
import type { WriteBudget } from '../budget/write-budget.js';
import { ServiceError } from '../domain/errors.js';
import { mayDo } from '../domain/roles.js';
import type { IngestedFile } from '../media/ingest.js';
import { discardIngested } from '../media/ingest.js';
import type { AssetService, UploadDetails } from '../services/asset-service.js';
import { assetJson } from '../services/asset-json.js';
import type { Store } from '../store/store.js';
import { authenticateAdmin } from './admin-auth.js';
import { requestOrigin } from './request-origin.js';
import { mediaRefusal, sendMediaError, tooLarge } from './media-errors.js';

/** Room for the multipart framing and the small parts around the file, past the file's own limit. */
const FRAMING_BYTES = 1024 * 1024;

export interface AssetUploadOptions {
  store: Store;
  assets: AssetService;
  budget: WriteBudget;
}

/**
 * Authenticates, checks the role and the budget, and refuses a body larger than the limit before reading it.
 * `chargeBudget` false: the request continues an upload already charged for (a tus HEAD, PATCH or DELETE).
 */
export async function admitUpload(
  store: Store,
  budget: WriteBudget,
  request: FastifyRequest,
  reply: FastifyReply,
  declaredBytes: number | null,
  maxBytes: number,
  chargeBudget = true,
): Promise<Authenticated> {
  const authenticated = await authenticateAdmin(store, request, reply, Date.now());
  if (!mayDo(authenticated.actor.role, 'write records')) {
    throw new ServiceError('FORBIDDEN', `Forbidden: ${authenticated.actor.role} may not upload assets`);
  }
  if (declaredBytes !== null && declaredBytes > maxBytes) throw tooLarge(maxBytes);
  if (chargeBudget && !authenticated.viaSession)
    await budget.charge(authenticated.actor.workspaceId, 1, authenticated.writeBudget);
  return authenticated;
}

export async function registerAssetUploadRoute(app: FastifyInstance, options: AssetUploadOptions): Promise<void> {
  const { store, assets, budget } = options;
  const maxBytes = assets.options.maxUploadBytes;
  await app.register(async (scope) => {
    // The parser is this scope's alone: no other route takes multipart bodies.
    await scope.register(multipart, {
      throwFileSizeLimit: false,
      limits: { fileSize: maxBytes + 1, files: 1, fields: 10, fieldSize: 64 * 1024, parts: 12 },
    });
    const authenticated = new WeakMap<FastifyRequest, Authenticated>();
    scope.post(
      '/assets',
      {
        onRequest: async (request, reply) => {
          try {
            const length = Number(request.headers['content-length']);
            const declared = Number.isFinite(length) ? Math.max(0, length - FRAMING_BYTES) : null;
            authenticated.set(request, await admitUpload(store, budget, request, reply, declared, maxBytes));
          } catch (error) {
            return sendMediaError(request, reply, error);
          }
        },
      },
      async (request, reply) => {
        const { actor } = authenticated.get(request)!;
        let file: IngestedFile | null = null;
        try {
          if (!request.isMultipart()) throw mediaRefusal('file', 'send the file as multipart/form-data, in a part named file');
          const details: UploadDetails = {};
          for await (const part of request.parts()) {
            if (part.type === 'file') {
              if (part.fieldname !== 'file' || file) {
                part.file.resume();
                throw mediaRefusal(part.fieldname, 'only one file, in a part named file');
              }
              details.filename = part.filename;
              file = await assets.receive(part.file);
            } else if (part.fieldname === 'alt') {
              details.alt = parseJsonOrText(String(part.value), 'alt');
            } else if (part.fieldname === 'tags') {
              details.tags = parseJsonOrText(String(part.value), 'tags');
            } else {
              throw mediaRefusal(part.fieldname, 'unknown part: send file, and optionally alt and tags');
            }
          }
          if (!file) throw mediaRefusal('file', 'is required: a part named file');
          const received = file;
          file = null;
          const asset = await assets.storeReceived(actor, received, details);
          return reply.code(201).send({ asset: assetJson(asset, assets.urls.url(asset, requestOrigin(request))) });
        } catch (error) {
          if (file) await discardIngested(file);
          return sendMediaError(request, reply, error, maxBytes);
        }
      },
    );
  });
}

/** `alt` and `tags` parts (and tus metadata): JSON when they parse as JSON, else (alt only) the plain text. */
export function parseJsonOrText(value: string, part: 'alt' | 'tags'): unknown {
  try {
    return JSON.parse(value);
  } catch {
    if (part === 'alt') return value;
    throw mediaRefusal('tags', 'expected a JSON array of strings, such as ["red","summer"]');
  }
}
