import cors from '@fastify/cors';
import { requestOrigin } from './request-origin.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import { requireStorableText } from '../domain/text.js';
import type { Services } from '../graphql/context.js';
import { buildDeliverySchema, type DeliveryContext } from '../graphql/delivery/schema.js';
import { executeOperation } from '../graphql/execute.js';
import { DocumentCache, prepareOperation, readGraphQLRequest, type GraphQLRequest } from '../graphql/request.js';
import { authenticate, notAuthorized } from '../auth/authenticate.js';
import { asksForPreview } from '../graphql/delivery/preview.js';
import type { Store } from '../store/store.js';
import { answerFingerprint, deliveryCacheControl, evaluateIfNoneMatch, NO_STORE } from './delivery-cache.js';
import { DeliveryRevalidation, KnownUrl, type CorsHeadersOf } from './delivery-revalidation.js';
import { answerGraphQL, CacheableAnswer, graphQLContentType, readGetRequest } from './reply.js';

export interface DeliveryRouteOptions {
  store: Store;
  services: Services;
  corsOrigins: string[] | '*';
  /** Answer `__schema` / `__type` queries (default on). */
  introspection?: boolean;
  /** The largest request body the delivery route reads (its queries are short; 413 above). */
  bodyLimitBytes: number;
  /** The largest answer, in bytes of JSON; a larger one is replaced by a PAYLOAD_TOO_LARGE error. */
  maxResponseBytes?: number;
  /** Seconds shared caches may serve an answer without asking again (s-maxage); 0: they revalidate every time. */
  maxAgeSeconds?: number;
}

/**
 * `POST /public/{org}/{workspace}/graphql` (and GET for queries): read-only, public models only, no token,
 * CORS for storefronts, a small body limit (its queries are short). Answers carry an ETag made from the
 * workspace's content version before anything runs, so a GET whose If-None-Match is current is answered 304
 * without running its query (delivery-cache.ts).
 */
export async function registerDeliveryRoute(app: FastifyInstance, options: DeliveryRouteOptions): Promise<DeliveryRevalidation> {
  const schema = buildDeliverySchema();
  const documents = new DocumentCache(schema, { introspection: options.introspection ?? true });
  const corsHeadersOf = simpleCorsHeaders(options.corsOrigins);
  const revalidation = new DeliveryRevalidation(
    options.store,
    answerFingerprint(schema),
    deliveryCacheControl(options.maxAgeSeconds ?? 0),
    corsHeadersOf,
    app.log,
  );
  const knownUrls = revalidation.knownUrls;
  type Route = { Params: { org: string; workspace: string } };

  const answer = (request: FastifyRequest<Route>, reply: FastifyReply, read: () => GraphQLRequest) => {
    // Until the answer turns out to be one caches may keep: refusals and answers with errors are never kept.
    reply.header('cache-control', NO_STORE);
    return answerGraphQL(
      request,
      reply,
      async (onUnexpected) => {
        const graphqlRequest = read();
        const prepared = prepareOperation(schema, documents, graphqlRequest);
        requireStorableText('org', request.params.org);
        requireStorableText('workspace', request.params.workspace);
        // The version is read before the answer is made: a write in between makes the tag older than the
        // answer, never newer, so a cache cannot keep an old answer under a current tag.
        // (Read after the request arrived, by the fast path or here: either is as recent as the request.)
        const versioned =
          revalidation.versionReadFor(request.raw) ??
          (await options.store.tenancy.findWorkspaceWithContentVersion(request.params.org, request.params.workspace));
        if (!versioned) throw new ServiceError('NOT_FOUND', 'Workspace not found');
        let known = request.method === 'POST' ? undefined : knownUrls.get(request.url);
        if (!known) {
          known = new KnownUrl(request.params.org, request.params.workspace, graphqlRequest);
          if (request.method !== 'POST') knownUrls.remember(request.url, known);
        }
        const headers = revalidation.headersOf(known, versioned, graphQLContentType(request));
        // Conditional requests are GET's (and HEAD's): what caches send. A POST is always answered in full.
        const condition =
          request.method === 'POST' ? 'none' : evaluateIfNoneMatch(request.headers['if-none-match'], headers.etag);
        if (condition === 'match') return new CacheableAnswer(null, headers);
        const callerIsMember = await isMemberToken(options.store, request, versioned.workspace.id);
        const preview = asksForPreview(prepared);
        if (preview && !callerIsMember) throw notAuthorized();
        const context: DeliveryContext = {
          workspace: versioned.workspace,
          services: options.services,
          callerIsMember,
          preview,
          origin: requestOrigin(request),
        };
        // Working copies are for the members who ask: no cache keeps them (Cache-Control stays private, no-store).
        if (preview) {
          context.answerIsPersonal = true;
          reply.header('cache-control', 'private, no-store');
        }
        const body = await executeOperation(schema, prepared, context, onUnexpected);
        // The same URL answered to anyone else says less: this answer is not the one its tag names (no-store).
        if (context.answerIsPersonal) return body;
        return new CacheableAnswer(body, headers, condition === 'any');
      },
      options.maxResponseBytes,
    );
  };

  await app.register(
    async (scope) => {
      // Preflight (OPTIONS /public/*): @fastify/cors, in a scope of its own, so that its per-request hook (which
      // resolves its options for every request) runs on preflight requests only.
      await scope.register(async (preflight) => {
        await preflight.register(cors, {
          origin: options.corsOrigins === '*' ? '*' : options.corsOrigins,
          methods: ['GET', 'POST', 'OPTIONS'],
          // x-workspace-id: the hosted service's SDK sends it from browsers (the workspace is in the path here);
          // authorization: a preview's token (docs/lifecycle.md), sent by a storefront's preview page.
          allowedHeaders: ['content-type', 'accept', 'x-workspace-id', 'if-none-match', 'authorization'],
          exposedHeaders: CORS_EXPOSED_HEADERS,
          maxAge: 600,
        });
      });
      await scope.register((routes, _options, registered) => {
        // Every answer of the route: the CORS headers @fastify/cors gives a request that is not a preflight (the
        // same headers, in the same order). (A current revalidation is answered before Fastify: DeliveryRevalidation.)
        routes.addHook('onRequest', (request, reply, done) => {
          for (const [name, value] of corsHeadersOf(request.headers.origin)) reply.header(name, value);
          done();
        });
        routes.post<Route>('/:org/:workspace/graphql', { bodyLimit: options.bodyLimitBytes }, (request, reply) =>
          answer(request, reply, () => readGraphQLRequest(request.body)),
        );
        routes.get<Route>('/:org/:workspace/graphql', (request, reply) =>
          answer(request, reply, () => readGetRequest(request.query)),
        );
        registered();
      });
    },
    { prefix: '/public' },
  );
  return revalidation;
}

/** The response headers a page may read (Access-Control-Expose-Headers). */
const CORS_EXPOSED_HEADERS = ['x-request-id', 'etag'];

/**
 * The CORS headers of an answer that is not a preflight, as @fastify/cors sets them with these options (origin a
 * string or a list, no credentials, exposed headers), made once rather than per request: with a list of origins
 * `Vary: Origin` (the answer's first Vary; the route adds Accept to it) and the request's Origin when it is listed;
 * with `*` (or a list holding `*`) `*`; then the exposed headers.
 */
function simpleCorsHeaders(origins: string[] | '*'): CorsHeadersOf {
  const exposed = ['access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', ')] as const;
  if (origins === '*' || origins.includes('*')) {
    const headers = [['access-control-allow-origin', '*'] as const, exposed];
    return () => headers;
  }
  const allowed = new Set(origins);
  const unlisted = [['vary', 'Origin'] as const, exposed];
  return (origin) =>
    origin !== undefined && allowed.has(origin)
      ? [['vary', 'Origin'], ['access-control-allow-origin', origin], exposed]
      : unlisted;
}

/**
 * Whether the request carries a valid API token of this workspace (Authorization and x-workspace-id, as on the
 * admin route). Only what a refusal says depends on it: the answers themselves are the same for everyone.
 */
async function isMemberToken(store: Store, request: FastifyRequest, workspaceId: string): Promise<boolean> {
  const authorization = request.headers.authorization;
  if (authorization === undefined) return false;
  const workspaceHeader = request.headers['x-workspace-id'];
  try {
    // Without x-workspace-id, the token is taken for the route's own workspace (a preview link carries only the token).
    const { actor } = await authenticate(
      store,
      authorization,
      typeof workspaceHeader === 'string' ? workspaceHeader : workspaceId,
    );
    return actor.workspaceId === workspaceId;
  } catch {
    return false;
  }
}
