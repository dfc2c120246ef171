import type { IncomingMessage } from 'node:http';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import { WriteBudget } from '../budget/write-budget.js';
import { systemClock, type Clock } from '../clock.js';
import { ServiceError } from '../domain/errors.js';
import type { Services } from '../graphql/context.js';
import { UNEXPECTED_MESSAGE } from '../graphql/execute.js';
import { newId } from '../ids.js';
import { HistoryService } from '../services/history-service.js';
import { PublishingService } from '../services/publishing-service.js';
import { ScheduleService } from '../services/schedule-service.js';
import { MemberService } from '../services/member-service.js';
import { ModelService } from '../services/model-service.js';
import { RecordReader } from '../services/record-reader.js';
import { RecordService } from '../services/record-service.js';
import { TokenService } from '../services/token-service.js';
import { WorkspaceService } from '../services/workspace-service.js';
import { WebhookService } from '../services/webhook-service.js';
import type { Store } from '../store/store.js';
import { registerAdminApp } from './admin-app.js';
import { openMedia, temporaryMediaConfig, type MediaConfig } from './media-setup.js';
import { registerAssetUploadRoute } from './asset-upload-route.js';
import { registerAssetTusRoute } from './asset-tus-route.js';
import { registerAssetServeRoute } from './asset-serve-route.js';
import { registerAdminRoute } from './admin-route.js';
import { DEFAULTS, type ServerConfig } from './config.js';
import { connectionOptions, type ConnectionLimits } from './connection-limits.js';
import { registerDeliveryRoute } from './delivery-route.js';
import { registerGraphiqlAssets } from './graphiql.js';
import { serverWithEarlyAnswers, type EarlyAnswer } from './http-server.js';
import { registerMcpRoute } from './mcp-route.js';
import { cachingQuerystringParser, routerQuerystringParser } from './querystring.js';
import { sendRefusal } from './reply.js';
import { requestLogFields } from './request-log.js';
import { answerClientError, answerFrameworkError, answerNotFound } from './router-errors.js';
import { registerSessionRoutes, type SignInOptions } from './session-routes.js';
import { registerSignInLinkRoute } from './sign-in-link-route.js';

export interface AppOptions {
  store: Store;
  config: Pick<ServerConfig, 'writeBudget' | 'bodyLimitBytes' | 'corsOrigins' | 'publicBodyLimitBytes'> &
    ConnectionLimits &
    Partial<
      Pick<
        ServerConfig,
        'introspection' | 'maxFieldBytes' | 'maxRecordBytes' | 'maxResponseBytes' | 'deliveryMaxAge' | 'writeBudgetWindowSeconds'
      >
    >;
  logger: FastifyBaseLogger;
  budget?: WriteBudget;
  /** Sign-in limits, where they are counted and the bound on password hashes at once (defaults: session-routes.ts). */
  signIn?: Partial<SignInOptions>;
  /** The time that decides token and session expiry (tests set it; default the system clock). */
  clock?: Clock;
  /** Webhooks to loopback and private addresses are allowed (--webhook-allow-private; default refused). */
  webhookAllowPrivate?: boolean;
  /** The media library's storage and limits (default: file storage in a temporary directory, for tests). */
  media?: MediaConfig;
}

/** The HTTP application: routes, request ids, one log line per request, errors mapped to the contract. */
export async function buildApp({
  store,
  config,
  logger,
  budget,
  signIn,
  clock = systemClock,
  webhookAllowPrivate = false,
  media: mediaConfig,
}: AppOptions): Promise<FastifyInstance> {
  // The delivery route's revalidations are answered before Fastify (http-server.ts), except while shutting down.
  let earlyAnswer: EarlyAnswer | null = null;
  let draining = false;
  const app = Fastify({
    serverFactory: serverWithEarlyAnswers(() => (draining ? null : earlyAnswer)),
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => newId(),
    return503OnClosing: true,
    ...connectionOptions(config),
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // The router's own parser, with the query strings it parsed last kept (querystring.ts): a repeated URL is not
    // parsed again.
    routerOptions: { querystringParser: cachingQuerystringParser(routerQuerystringParser()) },
  });
  app.server.maxConnections = config.maxConnections;
  const writeBudget =
    budget ??
    new WriteBudget(config.writeBudget, undefined, config.writeBudgetWindowSeconds ?? DEFAULTS.writeBudgetWindowSeconds);
  const maxResponseBytes = config.maxResponseBytes ?? DEFAULTS.maxResponseBytes;
  const records = new RecordService(
    store,
    {
      maxFieldBytes: config.maxFieldBytes ?? DEFAULTS.maxFieldBytes,
      maxRecordBytes: config.maxRecordBytes ?? DEFAULTS.maxRecordBytes,
    },
    maxResponseBytes,
  );
  const mediaSettings = mediaConfig ?? (await temporaryMediaConfig());
  const media = await openMedia(store, mediaSettings);
  const services: Services = {
    models: new ModelService(store),
    records,
    reader: new RecordReader(store, records, maxResponseBytes, media.assets.urls),
    tokens: new TokenService(store, clock),
    workspaces: new WorkspaceService(store, writeBudget.defaultBudget),
    webhooks: new WebhookService(store, { allowPrivate: webhookAllowPrivate }),
    members: new MemberService(store, clock),
    history: new HistoryService(store, records),
    publishing: new PublishingService(store, records),
    schedules: new ScheduleService(store),
    assets: media.assets,
  };
  app.addHook('onClose', async () => media.close());

  // The per-request hooks take callbacks rather than being async: each request runs every one of them.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // While shutting down, answers to requests still in flight close their connection, so that the server
  // is not left waiting on keep-alive connections once the last answer is out.
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(requestLogFields(request.method, request.url, reply.statusCode, reply.elapsedTime), 'request');
    done();
  });
  app.removeContentTypeParser(['text/plain', 'application/json']);
  // Plain JSON.parse: keys like __proto__ become own properties, which validation refuses by name.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // A DELETE (sign-out) from a client that labels every request JSON carries no body.
    if (body === '' && request.method === 'DELETE') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(Object.assign(new SyntaxError('Request body must be valid JSON'), { statusCode: 400 }), undefined);
    }
  });
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (isTooLarge(error)) await discardBody(request.raw, DISCARD_LIMIT_BYTES);
    return refuse(error, request, reply, request.routeOptions.bodyLimit ?? config.bodyLimitBytes);
  });
  app.setNotFoundHandler(answerNotFound);

  app.get('/healthz', async (_request, reply) => {
    try {
      await store.ping();
      return { status: 'ok', database: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', database: 'unreachable' });
    }
  });
  const introspection = config.introspection ?? true;
  registerAdminRoute(app, { store, services, budget: writeBudget, introspection, maxResponseBytes, clock });
  // One bound on password hashes for both routes that make them.
  const { hashing, passwordHashCost } = registerSessionRoutes(app, { store, ...signIn, clock });
  registerSignInLinkRoute(app, { store, clock, hashing, passwordHashCost });
  registerMcpRoute(app, { store, clock });
  await registerAssetUploadRoute(app, { store, assets: media.assets, budget: writeBudget });
  await registerAssetTusRoute(app, { store, assets: media.assets, budget: writeBudget, media: mediaSettings });
  registerAssetServeRoute(app, { store, assets: media.assets, queue: media.queue });
  const revalidation = await registerDeliveryRoute(app, {
    store,
    services,
    corsOrigins: config.corsOrigins,
    introspection,
    bodyLimitBytes: config.publicBodyLimitBytes,
    maxResponseBytes,
    maxAgeSeconds: config.deliveryMaxAge ?? DEFAULTS.deliveryMaxAge,
  });
  earlyAnswer = (request, response, next) => revalidation.take(request, response, next);
  registerGraphiqlAssets(app);
  registerAdminApp(app);
  return app;
}

/** How much of an oversized body is read and thrown away so the client, still sending, gets to read the 413. */
const DISCARD_LIMIT_BYTES = 256 * 1024 * 1024;

function isTooLarge(error: FastifyError): boolean {
  return error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413;
}

function discardBody(raw: IncomingMessage, limit: number): Promise<void> {
  if (raw.complete || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let received = 0;
    raw.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) resolve();
    });
    raw.once('end', () => resolve());
    raw.once('error', () => resolve());
    raw.resume();
  });
}

function refuse(error: FastifyError, request: FastifyRequest, reply: FastifyReply, bodyLimitBytes: number) {
  const status = error.statusCode ?? 500;
  if (isTooLarge(error)) {
    return sendRefusal(
      request,
      reply,
      new ServiceError('PAYLOAD_TOO_LARGE', `Request body is larger than ${bodyLimitBytes} bytes`),
    );
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415) {
    reply.code(415);
    return reply.send({ errors: [{ message: 'Content-Type must be application/json', extensions: { code: 'BAD_USER_INPUT' } }] });
  }
  if (status >= 400 && status < 500) {
    const message =
      error.code?.startsWith('FST_ERR_CTP') || error instanceof SyntaxError ? 'Request body must be valid JSON' : 'Bad request';
    return sendRefusal(request, reply, new ServiceError('BAD_USER_INPUT', message));
  }
  request.log.error({ err: error }, 'unexpected error');
  return reply.code(500).send({ errors: [{ message: UNEXPECTED_MESSAGE, extensions: { code: 'INTERNAL' } }] });
}
