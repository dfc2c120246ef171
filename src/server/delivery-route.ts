import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import type { Services } from '../graphql/context.js';
import { buildDeliverySchema, type DeliveryContext } from '../graphql/delivery/schema.js';
import { executeOperation } from '../graphql/execute.js';
import { DocumentCache, prepareOperation, readGraphQLRequest } from '../graphql/request.js';
import type { Store } from '../store/store.js';
import { answerGraphQL } from './reply.js';

export interface DeliveryRouteOptions {
  store: Store;
  services: Services;
  corsOrigins: string[] | '*';
  /** Answer `__schema` / `__type` queries (default on). */
  introspection?: boolean;
}

/** `POST /public/{org}/{workspace}/graphql`: read-only, public models only, no token, CORS for storefronts. */
export async function registerDeliveryRoute(app: FastifyInstance, options: DeliveryRouteOptions): Promise<void> {
  const schema = buildDeliverySchema();
  const documents = new DocumentCache(schema, { introspection: options.introspection ?? true });
  await app.register(async (scope) => {
    await scope.register(cors, {
      origin: options.corsOrigins === '*' ? '*' : options.corsOrigins,
      methods: ['GET', 'POST', 'OPTIONS'],
      allowedHeaders: ['content-type', 'accept'],
      exposedHeaders: ['x-request-id'],
      maxAge: 600,
    });
    scope.post<{ Params: { org: string; workspace: string } }>(
      '/:org/:workspace/graphql',
      (request, reply) =>
        answerGraphQL(request, reply, async (onUnexpected) => {
          const graphqlRequest = readGraphQLRequest(request.body);
          const prepared = prepareOperation(schema, documents, graphqlRequest);
          const workspace = await options.store.tenancy.findWorkspaceBySlugs(
            request.params.org,
            request.params.workspace,
          );
          if (!workspace) throw new ServiceError('NOT_FOUND', 'Workspace not found');
          const context: DeliveryContext = { workspace, services: options.services };
          return executeOperation(schema, prepared, context, onUnexpected);
        }),
    );
  }, { prefix: '/public' });
}
