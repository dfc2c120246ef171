import type { FastifyInstance } from 'fastify';
import { authenticate } from '../auth/authenticate.js';
import type { WriteBudget } from '../budget/write-budget.js';
import { ServiceError } from '../domain/errors.js';
import { mayDo } from '../domain/roles.js';
import { planAdminOperation } from '../graphql/admin/plan.js';
import { buildAdminSchema } from '../graphql/admin/schema.js';
import type { AdminContext, Services } from '../graphql/context.js';
import { executeOperation } from '../graphql/execute.js';
import { DocumentCache, prepareOperation, readGraphQLRequest } from '../graphql/request.js';
import type { Store } from '../store/store.js';
import { answerGraphQL } from './reply.js';
import { graphiqlPage } from './graphiql.js';

export interface AdminRouteOptions {
  store: Store;
  services: Services;
  budget: WriteBudget;
  /** Answer `__schema` / `__type` queries (default on). */
  introspection?: boolean;
}

/** `POST /graphql`: auth, then GraphQL validation, permission, write budget, and only then execution. */
export function registerAdminRoute(app: FastifyInstance, { store, services, budget, introspection = true }: AdminRouteOptions): void {
  const schema = buildAdminSchema();
  const documents = new DocumentCache(schema, { introspection });

  app.post('/graphql', (request, reply) =>
    answerGraphQL(request, reply, async (onUnexpected) => {
      const graphqlRequest = readGraphQLRequest(request.body);
      const { actor, writeBudget } = await authenticate(
        store,
        request.headers.authorization,
        headerValue(request.headers['x-workspace-id']),
      );
      const prepared = prepareOperation(schema, documents, graphqlRequest);
      const plan = planAdminOperation(schema, prepared);
      for (const permission of plan.permissions) {
        if (!mayDo(actor.role, permission)) {
          throw new ServiceError('FORBIDDEN', `Forbidden: ${actor.role} may not ${permission}`);
        }
      }
      if (plan.cost > 0) await budget.charge(actor.workspaceId, plan.cost, writeBudget);
      const context: AdminContext = { actor, services };
      return executeOperation(schema, prepared, context, onUnexpected);
    }),
  );

  app.get('/graphql', async (_request, reply) => reply.type('text/html; charset=utf-8').send(graphiqlPage()));
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
