import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticated } from '../auth/authenticate.js';
import { requestOrigin } from './request-origin.js';
import { authenticateAdmin } from './admin-auth.js';
import type { WriteBudget } from '../budget/write-budget.js';
import { systemClock, type Clock } from '../clock.js';
import { ServiceError } from '../domain/errors.js';
import { mayDo } from '../domain/roles.js';
import { planAdminOperation } from '../graphql/admin/plan.js';
import { buildAdminSchema } from '../graphql/admin/schema.js';
import type { AdminContext, Services } from '../graphql/context.js';
import { executeOperation } from '../graphql/execute.js';
import { DocumentCache, prepareOperation, readGraphQLRequest, type GraphQLRequest } from '../graphql/request.js';
import type { Store } from '../store/store.js';
import { answerGraphQL, readGetRequest, sendRefusal } from './reply.js';
import { sendGraphiqlPage } from './graphiql.js';

export interface AdminRouteOptions {
  store: Store;
  services: Services;
  budget: WriteBudget;
  /** Answer `__schema` / `__type` queries (default on). */
  introspection?: boolean;
  /** The largest answer, in bytes of JSON; a larger one is replaced by a PAYLOAD_TOO_LARGE error. */
  maxResponseBytes?: number;
  /** The time that decides token and session expiry (default the system clock). */
  clock?: Clock;
}

/**
 * `POST /graphql` (and `GET /graphql` for queries): auth first, before the body is read, then GraphQL validation,
 * permission, write budget, and only then execution. A browser's GET without a query gets GraphiQL.
 */
export function registerAdminRoute(
  app: FastifyInstance,
  { store, services, budget, introspection = true, maxResponseBytes, clock = systemClock }: AdminRouteOptions,
): void {
  const schema = buildAdminSchema();
  const documents = new DocumentCache(schema, { introspection });
  const authenticated = new WeakMap<FastifyRequest, Authenticated>();

  // An onRequest hook runs before the body is read: a request without valid credentials is answered 401
  // without the server reading or parsing what it sends.
  const authenticateFirst = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method === 'GET' && wantsGraphiql(request)) return;
    try {
      authenticated.set(request, await authenticateAdmin(store, request, reply, clock()));
    } catch (error) {
      if (error instanceof ServiceError) return sendRefusal(request, reply, error);
      throw error;
    }
  };

  const answer = (request: FastifyRequest, reply: FastifyReply, read: () => GraphQLRequest) =>
    answerGraphQL(
      request,
      reply,
      async (onUnexpected) => {
        const graphqlRequest = read();
        const { actor, writeBudget, viaSession } = authenticated.get(request)!;
        const prepared = prepareOperation(schema, documents, graphqlRequest);
        const plan = planAdminOperation(schema, prepared);
        for (const permission of plan.permissions) {
          if (!mayDo(actor.role, permission)) {
            throw new ServiceError('FORBIDDEN', `Forbidden: ${actor.role} may not ${permission}`);
          }
        }
        // The spec: writes made in the admin application (a session) are not counted against the token budget.
        if (plan.cost > 0 && !viaSession) await budget.charge(actor.workspaceId, plan.cost, writeBudget);
        const context: AdminContext = { actor, services, origin: requestOrigin(request) };
        return executeOperation(schema, prepared, context, onUnexpected);
      },
      maxResponseBytes,
    );

  app.post('/graphql', { onRequest: authenticateFirst }, (request, reply) =>
    answer(request, reply, () => readGraphQLRequest(request.body)),
  );
  app.get('/graphql', { onRequest: authenticateFirst }, (request, reply) => {
    if (wantsGraphiql(request)) return sendGraphiqlPage(reply);
    return answer(request, reply, () => readGetRequest(request.query));
  });
}

/** A browser opening /graphql: no `query` in the URL, HTML accepted. */
function wantsGraphiql(request: FastifyRequest): boolean {
  const parameters = request.query as Record<string, unknown> | undefined;
  return parameters?.query === undefined && (request.headers.accept ?? '').includes('text/html');
}
