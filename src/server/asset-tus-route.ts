// Resumable uploads (docs/media.md, "Resumable uploads (tus)"): the tus 1.0 protocol (core, creation, termination)
// at `/assets/tus`, by @tus/server. Every request but the OPTIONS preflight is authenticated here first, as
// `POST /assets` is (a token and x-workspace-id, or the admin session with its CSRF header; editor and above); the
// write budget is charged once, at creation. Upload ids start with the workspace's id, and another workspace's
// upload is 404. A finished upload goes through the same ingest as `POST /assets` (typed from its content, hashed,
// measured), becomes an asset, and is removed; the last answer carries `x-asset-id`. Every error answer has the
// JSON `errors` body of the other routes, with tus's own status kept (clients act on 409 and 412).
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Server, type Upload } from '@tus/server';
import { CSRF_HEADER } from '../auth/sessions.js';
import type { WriteBudget } from '../budget/write-budget.js';
import { ServiceError, type ErrorCode } from '../domain/errors.js';
import { serviceErrorBody, UNEXPECTED_MESSAGE } from '../graphql/execute.js';
import { MediaInputError } from '../media/errors.js';
import { openTusArea, type TusArea } from '../media/tus-area.js';
import type { Actor } from '../services/actor.js';
import type { AssetService, UploadDetails } from '../services/asset-service.js';
import type { Store } from '../store/store.js';
import { admitUpload, parseJsonOrText } from './asset-upload-route.js';
import { sendMediaError, tooLarge } from './media-errors.js';
import type { MediaConfig } from './media-setup.js';
import { sendGraphQL } from './reply.js';
import { requestOrigin } from './request-origin.js';

export const TUS_PATH = '/assets/tus';
/** An upload's id in its URL: `<workspace id>_<32 hex digits>`. */
const UPLOAD_ID = /^[A-Za-z0-9-]{1,64}_[0-9a-f]{32}$/;
/** Request headers that belong to the connection, not to the request handed to tus. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

export interface AssetTusOptions {
  store: Store;
  assets: AssetService;
  budget: WriteBudget;
  media: Pick<MediaConfig, 'storageUrl' | 'publicUrl' | 'uploadExpiryHours'>;
}

/** What the tus hooks know of the request they run for (keyed by the Request handed to tus). */
interface TusCall {
  request: FastifyRequest;
  actor: Actor;
  /** Where the upload's URL (Location) starts. */
  origin: string;
  /** An error of ours (a refusal, or unexpected) that tus answered as a failure. */
  failure?: unknown;
}

export async function registerAssetTusRoute(app: FastifyInstance, options: AssetTusOptions): Promise<void> {
  const { store, assets, budget } = options;
  const maxBytes = assets.options.maxUploadBytes;
  const expiryMs = options.media.uploadExpiryHours * 3_600_000;
  const area = await openTusArea(options.media.storageUrl, assets.storage, expiryMs);
  const publicOrigin = options.media.publicUrl ? options.media.publicUrl.replace(/\/+$/, '') : null;
  const calls = new WeakMap<object, TusCall>();
  const callOf = (req: object): TusCall => {
    const call = calls.get(req);
    if (!call) throw new Error('tus: a request that did not come through the route');
    return call;
  };
  const tus = tusServer(area, assets, maxBytes, callOf);
  removeExpiredUploads(app, area, expiryMs);
  const actors = new WeakMap<FastifyRequest, Actor>();

  // A scope of its own: its body parsers and its hook are the route's alone.
  await app.register((scope, _options, done) => {
    // Bodies are tus's to read (PATCH: application/offset+octet-stream); this scope parses none of them.
    scope.removeAllContentTypeParsers();
    const leaveBody = (_request: FastifyRequest, _payload: unknown, parsed: (error: null) => void) => parsed(null);
    scope.addContentTypeParser('application/offset+octet-stream', leaveBody);
    scope.addContentTypeParser('*', leaveBody);
    scope.addHook('onRequest', async (request, reply) => {
      if (request.method === 'OPTIONS') return;
      try {
        const creating = request.method === 'POST';
        const declared = creating ? declaredLength(request.headers['upload-length']) : null;
        const { actor } = await admitUpload(store, budget, request, reply, declared, maxBytes, creating);
        const { uploadId } = request.params as { uploadId?: string };
        if (uploadId !== undefined && !uploadId.startsWith(`${actor.workspaceId}_`)) throw uploadNotFound();
        actors.set(request, actor);
      } catch (error) {
        return sendMediaError(request, reply, error, maxBytes);
      }
    });
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const web = webRequest(request);
      const call: TusCall = {
        request,
        actor: actors.get(request)!,
        origin: publicOrigin ?? requestOrigin(request),
      };
      calls.set(web, call);
      const response = await tus.handleWeb(web);
      for (const [name, value] of response.headers) {
        if (name !== 'content-length' && name !== 'content-type') reply.header(name, value);
      }
      if (call.failure !== undefined) return sendMediaError(request, reply, call.failure, maxBytes);
      if (response.status >= 400) return sendTusRefusal(request, reply, response.status, await response.text(), maxBytes);
      const { uploadId } = request.params as { uploadId?: string };
      // A terminated upload's leftovers that the datastore does not remove itself (S3: the incomplete part).
      if (request.method === 'DELETE' && uploadId !== undefined) await area.remove(area.idPrefix + uploadId);
      return reply.code(response.status).send();
    };
    scope.route({ method: ['POST', 'OPTIONS'], url: TUS_PATH, handler });
    scope.route({ method: ['HEAD', 'PATCH', 'DELETE', 'OPTIONS'], url: `${TUS_PATH}/:uploadId`, handler });
    done();
  });
}

/** Unfinished uploads past their expiry are removed at start, then every hour (or every expiry period, if shorter). */
function removeExpiredUploads(app: FastifyInstance, area: TusArea, expiryMs: number): void {
  const sweep = () =>
    area.removeExpired().catch((error: unknown) => app.log.warn({ error: String(error) }, 'tus: expired uploads'));
  void sweep();
  const timer = setInterval(() => void sweep(), Math.min(expiryMs, 3_600_000));
  timer.unref();
  app.addHook('onClose', (_instance, done) => {
    clearInterval(timer);
    done();
  });
}

function tusServer(area: TusArea, assets: AssetService, maxBytes: number, callOf: (req: object) => TusCall): Server {
  return new Server({
    path: TUS_PATH,
    datastore: area.datastore,
    maxSize: maxBytes,
    // Like the admin API, no Access-Control-Allow-Origin: other sites' pages cannot drive uploads.
    allowedOrigins: [],
    allowedHeaders: ['x-workspace-id', CSRF_HEADER],
    exposedHeaders: ['x-asset-id'],
    namingFunction: (req) => `${area.idPrefix}${callOf(req).actor.workspaceId}_${randomBytes(16).toString('hex')}`,
    generateUrl: (req, { id }) => `${callOf(req).origin}${TUS_PATH}/${id.slice(area.idPrefix.length)}`,
    getFileIdFromRequest: (_req, lastPath) =>
      lastPath !== undefined && UPLOAD_ID.test(lastPath) ? area.idPrefix + lastPath : undefined,
    // The metadata is checked before any byte arrives, so that a bad `tags` is not found out after a gigabyte.
    onUploadCreate: async (req, upload) => {
      await assets.checkDetails(callOf(req).actor.workspaceId, uploadDetails(upload.metadata));
      return {};
    },
    onUploadFinish: async (req, upload) => {
      const call = callOf(req);
      return { headers: { 'x-asset-id': await finishUpload(area, assets, call, upload) } };
    },
    onResponseError: (req, error) => {
      // tus's own refusals are mapped from its answer (sendTusRefusal); ours are answered as they are.
      if (!isTusRefusal(error)) callOf(req).failure = error;
      return undefined;
    },
  });
}

/** Stores a finished upload as an asset (its id), and removes the upload whatever happens. */
async function finishUpload(area: TusArea, assets: AssetService, call: TusCall, upload: Upload): Promise<string> {
  try {
    // A zero-length upload is finished at creation, before the datastore has written anything (S3: no object yet).
    if (upload.size === 0) throw new MediaInputError('file', 'the file is empty');
    const file = await assets.receive(await area.read(upload.id));
    const asset = await assets.storeReceived(call.actor, file, uploadDetails(upload.metadata));
    return asset.id;
  } finally {
    await area.remove(upload.id).catch((error: unknown) => {
      call.request.log.warn({ err: error, upload: upload.id }, 'could not remove a finished upload');
    });
  }
}

/** `Upload-Metadata`: `filename` (or `name`, as Uppy sends it), `alt`, `tags`; other keys are the client's own. */
export function uploadDetails(metadata: Record<string, string | null> | undefined): UploadDetails {
  const details: UploadDetails = { filename: metadata?.filename ?? metadata?.name ?? null };
  const alt = metadata?.alt;
  const tags = metadata?.tags;
  if (alt !== undefined && alt !== null) details.alt = parseJsonOrText(alt, 'alt');
  if (tags !== undefined && tags !== null) details.tags = parseJsonOrText(tags, 'tags');
  return details;
}

/** The Request tus reads: the client's headers and, for a PATCH (or a creation with data), its body as it streams. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const withBody =
    (request.method === 'PATCH' || request.method === 'POST') &&
    (request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0);
  // A streamed body needs `duplex: 'half'`, which Node's fetch takes but its RequestInit type does not name.
  const init: RequestInit & { duplex: 'half' } = {
    method: request.method,
    headers,
    body: withBody ? (Readable.toWeb(request.raw) as ReadableStream<Uint8Array>) : null,
    duplex: 'half',
  };
  return new Request(`http://localhost${request.raw.url ?? TUS_PATH}`, init);
}

function declaredLength(header: string | string[] | undefined): number | null {
  const length = typeof header === 'string' && /^\d{1,16}$/.test(header) ? Number(header) : NaN;
  return Number.isSafeInteger(length) ? length : null;
}

function uploadNotFound(): ServiceError {
  return new ServiceError('NOT_FOUND', 'upload not found');
}

/** tus's refusals are plain objects `{ status_code, body }` (@tus/utils ERRORS), not Errors. */
function isTusRefusal(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || error instanceof Error) return false;
  const { status_code: status, body } = error as { status_code?: unknown; body?: unknown };
  return typeof status === 'number' && typeof body === 'string';
}

const CODE_BY_TUS_STATUS: Record<number, ErrorCode> = {
  404: 'NOT_FOUND',
  410: 'NOT_FOUND',
  409: 'CONFLICT',
  423: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
  503: 'UNAVAILABLE',
};

/** One of tus's own error answers (a missing Tus-Resumable, an offset conflict…) with the JSON errors body. */
function sendTusRefusal(request: FastifyRequest, reply: FastifyReply, status: number, text: string, maxBytes: number) {
  const said = text.trim();
  let error: ServiceError;
  if (status >= 500 && status !== 503) {
    request.log.error({ status, tus: said }, 'unexpected error in a tus upload');
    error = new ServiceError('INTERNAL', UNEXPECTED_MESSAGE);
  } else if (status === 413 && /maximum size/i.test(said)) {
    error = tooLarge(maxBytes);
  } else if (status === 404 || status === 410) {
    error = uploadNotFound();
  } else {
    error = new ServiceError(CODE_BY_TUS_STATUS[status] ?? 'BAD_USER_INPUT', said || 'Bad request');
  }
  reply.header('cache-control', 'no-store');
  return sendGraphQL(request, reply, status, { errors: [serviceErrorBody(error)] });
}
