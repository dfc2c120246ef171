import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import { requireStorableText } from '../domain/text.js';
import type { Services } from '../graphql/context.js';
import { buildDeliverySchema, type DeliveryContext } from '../graphql/delivery/schema.js';
import { executeOperation } from '../graphql/execute.js';
import { DocumentCache, prepareOperation, readGraphQLRequest, type GraphQLRequest } from '../graphql/request.js';
import { authenticate } from '../auth/authenticate.js';
import { BoundedMap } from '../shared/bounded-map.js';
import { deepEqual } from '../shared/json.js';
import type { Store } from '../store/store.js';
import { answerFingerprint, deliveryCacheControl, entityTag, evaluateIfNoneMatch, NO_STORE } from './delivery-cache.js';
import type { VersionedWorkspace } from '../store/store.js';
import { answerGraphQL, CacheableAnswer, graphQLContentType, readGetRequest, sendNotModified } from './reply.js';

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
export async function registerDeliveryRoute(app: FastifyInstance, options: DeliveryRouteOptions): Promise<void> {
  const schema = buildDeliverySchema();
  const documents = new DocumentCache(schema, { introspection: options.introspection ?? true });
  const fingerprint = answerFingerprint(schema);
  const cacheControl = deliveryCacheControl(options.maxAgeSeconds ?? 0);
  const knownUrls = new KnownUrls();
  /** The workspace's version as the revalidation fast path read it, for the full answer when the copy was not current. */
  const versionsRead = new WeakMap<FastifyRequest, VersionedWorkspace>();
  type Route = { Params: { org: string; workspace: string } };
  const headersOf = (known: KnownUrl, versioned: VersionedWorkspace, contentType: string) => ({
    etag: known.tag(fingerprint, versioned, contentType),
    'cache-control': cacheControl,
    vary: 'Accept',
  });

  /**
   * The revalidation fast path, in onRequest: a GET (or HEAD) with If-None-Match whose URL was answered before is
   * what that URL was then (the same query, variables, operation and slugs, all found valid), so what is left of
   * the route's work is the version read, the tag (kept per URL and version) and the comparison; a 304 is sent
   * from here, before the body, the route handler and answerGraphQL. Anything else (no match, `*`, an error) goes
   * on to the route, which makes the same decision from scratch.
   */
  const revalidateEarly = (request: FastifyRequest, reply: FastifyReply): boolean | Promise<boolean> => {
    const known = knownUrls.get(request.url);
    if (!known) return false;
    const tenancy = options.store.tenancy;
    // Read synchronously where the store can (SQLite): the 304 is then sent within this hook, with no promise.
    if (tenancy.findWorkspaceWithContentVersionSync !== undefined) {
      return decideEarly(request, reply, known, tenancy.findWorkspaceWithContentVersionSync(known.org, known.workspace));
    }
    return tenancy
      .findWorkspaceWithContentVersion(known.org, known.workspace)
      .then((versioned) => decideEarly(request, reply, known, versioned));
  };
  const decideEarly = (
    request: FastifyRequest,
    reply: FastifyReply,
    known: KnownUrl,
    versioned: VersionedWorkspace | null,
  ): boolean => {
    if (!versioned) return false;
    const headers = headersOf(known, versioned, graphQLContentType(request));
    if (evaluateIfNoneMatch(request.headers['if-none-match'], headers.etag) !== 'match') {
      versionsRead.set(request, versioned);
      return false;
    }
    sendNotModified(reply, new CacheableAnswer(null, headers));
    return true;
  };

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
          versionsRead.get(request) ??
          (await options.store.tenancy.findWorkspaceWithContentVersion(request.params.org, request.params.workspace));
        if (!versioned) throw new ServiceError('NOT_FOUND', 'Workspace not found');
        let known = request.method === 'POST' ? undefined : knownUrls.get(request.url);
        if (!known) {
          known = new KnownUrl(request.params.org, request.params.workspace, graphqlRequest);
          if (request.method !== 'POST') knownUrls.remember(request.url, known);
        }
        const headers = headersOf(known, versioned, graphQLContentType(request));
        // Conditional requests are GET's (and HEAD's): what caches send. A POST is always answered in full.
        const condition =
          request.method === 'POST' ? 'none' : evaluateIfNoneMatch(request.headers['if-none-match'], headers.etag);
        if (condition === 'match') return new CacheableAnswer(null, headers);
        const context: DeliveryContext = {
          workspace: versioned.workspace,
          services: options.services,
          callerIsMember: await isMemberToken(options.store, request, versioned.workspace.id),
        };
        const body = await executeOperation(schema, prepared, context, onUnexpected);
        return new CacheableAnswer(body, headers, condition === 'any');
      },
      options.maxResponseBytes,
    );
  };

  const corsHeaders = simpleCorsHeaders(options.corsOrigins);
  await app.register(
    async (scope) => {
      // Preflight (OPTIONS /public/*): @fastify/cors, in a scope of its own, so that its per-request hook (which
      // resolves its options for every request) runs on preflight requests only.
      await scope.register(async (preflight) => {
        await preflight.register(cors, {
          origin: options.corsOrigins === '*' ? '*' : options.corsOrigins,
          methods: ['GET', 'POST', 'OPTIONS'],
          // x-workspace-id: the hosted service's SDK sends it from browsers (the workspace is in the path here).
          allowedHeaders: ['content-type', 'accept', 'x-workspace-id', 'if-none-match'],
          exposedHeaders: CORS_EXPOSED_HEADERS,
          maxAge: 600,
        });
      });
      await scope.register((routes, _options, registered) => {
        // Every answer of the route: the CORS headers @fastify/cors gives a request that is not a preflight (the
        // same headers, in the same order), then the revalidation fast path, so that a 304 sent there carries them.
        routes.addHook('onRequest', (request, reply, done) => {
          corsHeaders(request, reply);
          if ((request.method !== 'GET' && request.method !== 'HEAD') || request.headers['if-none-match'] === undefined) {
            done();
            return;
          }
          // On an error the route makes the same reads again and answers the error as it answers any.
          let answered: boolean | Promise<boolean>;
          try {
            answered = revalidateEarly(request, reply);
          } catch {
            done();
            return;
          }
          if (answered === false) done();
          else if (answered !== true)
            answered.then(
              (sent) => {
                if (!sent) done();
              },
              () => done(),
            );
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
}

/** The response headers a page may read (Access-Control-Expose-Headers). */
const CORS_EXPOSED_HEADERS = ['x-request-id', 'etag'];

/**
 * The CORS headers of an answer that is not a preflight, as @fastify/cors sets them with these options (origin a
 * string or a list, no credentials, exposed headers), made once rather than per request: with a list of origins
 * `Vary: Origin` and the request's Origin when it is listed; with `*` (or a list holding `*`) `*`; then the
 * exposed headers.
 */
function simpleCorsHeaders(origins: string[] | '*'): (request: FastifyRequest, reply: FastifyReply) => void {
  const exposed = CORS_EXPOSED_HEADERS.join(', ');
  if (origins === '*' || origins.includes('*')) {
    return (_request, reply) => {
      reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', exposed);
    };
  }
  const allowed = new Set(origins);
  return (request, reply) => {
    // The first Vary of the answer: this hook runs before anything else sets one (the route adds Accept, reply.ts).
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin !== undefined && allowed.has(origin)) reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', exposed);
  };
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
    const { actor } = await authenticate(store, authorization, typeof workspaceHeader === 'string' ? workspaceHeader : undefined);
    return actor.workspaceId === workspaceId;
  } catch {
    return false;
  }
}

/**
 * What a GET's URL asks, once the route has read it whole: its request parsed, validated as a query of this schema,
 * and its slugs checked. The URL decides all of that, so a later request with the same URL needs none of it again.
 * Keeps the tag it last made, with the version and content type it was made from.
 */
class KnownUrl {
  private lastVersioned: VersionedWorkspace | null = null;
  private lastContentType = '';
  private lastTag = '';

  constructor(
    readonly org: string,
    readonly workspace: string,
    private readonly request: GraphQLRequest,
  ) {}

  tag(fingerprint: string, versioned: VersionedWorkspace, contentType: string): string {
    // The same object on SQLite (the store hands out the one it keeps until the database changes); an equal one
    // (a new row read) on PostgreSQL. Equal workspaces have the same JSON: the row mapper builds them in one key order.
    const last = this.lastVersioned;
    if (
      last === null ||
      contentType !== this.lastContentType ||
      (versioned !== last &&
        (versioned.contentVersion !== last.contentVersion || !deepEqual(versioned.workspace, last.workspace)))
    ) {
      this.lastTag = entityTag(fingerprint, versioned, this.request, contentType);
      this.lastContentType = contentType;
    }
    this.lastVersioned = versioned;
    return this.lastTag;
  }
}

/** Known URLs (see KnownUrl), the most recently learnt 1000 of them up to 4 KB each. */
class KnownUrls {
  private readonly entries = new BoundedMap<string, KnownUrl>(1000);

  get(url: string): KnownUrl | undefined {
    return this.entries.get(url);
  }

  remember(url: string, known: KnownUrl): void {
    if (url.length > 4096) return;
    this.entries.set(url, known);
  }
}
