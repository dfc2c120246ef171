import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, type Authenticated } from '../auth/authenticate.js';
import { authenticateSession, headerValue, readCookie, SESSION_COOKIE } from '../auth/sessions.js';
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
      const { actor, writeBudget, viaSession } = await authenticateAdmin(store, request, reply);
      const prepared = prepareOperation(schema, documents, graphqlRequest);
      const plan = planAdminOperation(schema, prepared);
      for (const permission of plan.permissions) {
        if (!mayDo(actor.role, permission)) {
          throw new ServiceError('FORBIDDEN', `Forbidden: ${actor.role} may not ${permission}`);
        }
      }
      // The spec: writes made in the admin application (a session) are not counted against the token budget.
      if (plan.cost > 0 && !viaSession) await budget.charge(actor.workspaceId, plan.cost, writeBudget);
      const context: AdminContext = { actor, services };
      return executeOperation(schema, prepared, context, onUnexpected);
    }),
  );

  app.get('/graphql', async (_request, reply) => reply.type('text/html; charset=utf-8').send(graphiqlPage()));
}

/**
 * An API token (Authorization: Bearer) when the request has an Authorization header, whatever else it carries;
 * otherwise the admin application's session cookie with its CSRF token; otherwise 401.
 */
async function authenticateAdmin(store: Store, request: FastifyRequest, reply: FastifyReply): Promise<Authenticated> {
  if (request.headers.authorization === undefined && readCookie(request, SESSION_COOKIE) !== undefined) {
    const { refreshedCookie, ...authenticated } = await authenticateSession(store, request);
    if (refreshedCookie) reply.header('set-cookie', refreshedCookie);
    return authenticated;
  }
  return authenticate(store, request.headers.authorization, headerValue(request.headers['x-workspace-id']));
}
