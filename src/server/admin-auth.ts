// Who calls the admin API and the routes beside it (uploads): an API token, or the admin application's session.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, type Authenticated } from '../auth/authenticate.js';
import { authenticateSession, headerValue, readCookie, SESSION_COOKIE } from '../auth/sessions.js';
import type { Store } from '../store/store.js';

/**
 * An API token (Authorization: Bearer) when the request has an Authorization header, whatever else it carries;
 * otherwise the admin application's session cookie with its CSRF token; otherwise 401.
 */
export async function authenticateAdmin(
  store: Store,
  request: FastifyRequest,
  reply: FastifyReply,
  now: number,
): Promise<Authenticated> {
  if (request.headers.authorization === undefined && readCookie(request, SESSION_COOKIE) !== undefined) {
    const { refreshedCookie, ...authenticated } = await authenticateSession(store, request, now);
    if (refreshedCookie) reply.header('set-cookie', refreshedCookie);
    return authenticated;
  }
  return authenticate(store, request.headers.authorization, headerValue(request.headers['x-workspace-id']), now);
}
