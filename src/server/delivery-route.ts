import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import { requireStorableText } from '../domain/text.js';
import type { Services } from '../graphql/context.js';
import { buildDeliverySchema, type DeliveryContext } from '../graphql/delivery/schema.js';
import { executeOperation } from '../graphql/execute.js';
import { DocumentCache, prepareOperation, readGraphQLRequest, type GraphQLRequest } from '../graphql/request.js';
import type { Store } from '../store/store.js';
import { answerGraphQL, readGetRequest } from './reply.js';

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
}

/**
 * `POST /public/{org}/{workspace}/graphql` (and GET for queries): read-only, public models only, no token,
 * CORS for storefronts, a small body limit (its queries are short).
 */
export async function registerDeliveryRoute(app: FastifyInstance, options: DeliveryRouteOptions): Promise<void> {
  const schema = buildDeliverySchema();
  const documents = new DocumentCache(schema, { introspection: options.introspection ?? true });
  type Route = { Params: { org: string; workspace: string } };
  const answer = (request: FastifyRequest<Route>, reply: FastifyReply, read: () => GraphQLRequest) =>
    answerGraphQL(
      request,
      reply,
      async (onUnexpected) => {
        const graphqlRequest = read();
        const prepared = prepareOperation(schema, documents, graphqlRequest);
        requireStorableText('org', request.params.org);
        requireStorableText('workspace', request.params.workspace);
        const workspace = await options.store.tenancy.findWorkspaceBySlugs(request.params.org, request.params.workspace);
        if (!workspace) throw new ServiceError('NOT_FOUND', 'Workspace not found');
        const context: DeliveryContext = { workspace, services: options.services };
        return executeOperation(schema, prepared, context, onUnexpected);
      },
      options.maxResponseBytes,
    );

  await app.register(
    async (scope) => {
      await scope.register(cors, {
        origin: options.corsOrigins === '*' ? '*' : options.corsOrigins,
        methods: ['GET', 'POST', 'OPTIONS'],
        allowedHeaders: ['content-type', 'accept'],
        exposedHeaders: ['x-request-id'],
        maxAge: 600,
      });
      scope.post<Route>('/:org/:workspace/graphql', { bodyLimit: options.bodyLimitBytes }, (request, reply) =>
        answer(request, reply, () => readGraphQLRequest(request.body)),
      );
      scope.get<Route>('/:org/:workspace/graphql', (request, reply) =>
        answer(request, reply, () => readGetRequest(request.query)),
      );
    },
    { prefix: '/public' },
  );
}
