// The one-time sign-in link of a user added without a password (admin API `member.add`): the admin application's
// welcome page sends its token here, first alone (whose link is it?), then with the password the user chose, which
// is set, uses up the link and signs the user in as POST /admin/session does.
import type { FastifyInstance } from 'fastify';
import type { PasswordHashGate } from '../auth/password-gate.js';
import { hashPassword, MAX_PASSWORD_LENGTH, passwordProblem } from '../auth/passwords.js';
import { hashSessionId, newCsrfToken, newSessionId, SESSION_IDLE_MS, sessionCookie, slidingExpiry } from '../auth/sessions.js';
import { systemClock, type Clock } from '../clock.js';
import { ServiceError } from '../domain/errors.js';
import { hashSignInToken } from '../services/member-service.js';
import { isPlainObject } from '../shared/json.js';
import type { Store } from '../store/store.js';
import { sendRefusal } from './reply.js';
import { noStore, sessionBody, tooManyAtOnce } from './session-routes.js';

export const SIGN_IN_LINK_ROUTE = '/admin/sign-in-link';

/** The same answer for an unknown, used, expired or replaced link: the token's owner learns what to do, nobody more. */
function linkNotUsable(): ServiceError {
  return new ServiceError(
    'UNAUTHENTICATED',
    'This sign-in link cannot be used: it was used already, has expired or was replaced. Ask an admin of the workspace for a new one.',
  );
}

function readBody(body: unknown): { token: string; password: string | undefined } {
  if (!isPlainObject(body) || typeof body.token !== 'string' || body.token === '' || body.token.length > 200) {
    throw new ServiceError('BAD_USER_INPUT', 'token: must be the token of a sign-in link', { field: 'token' });
  }
  const { password } = body;
  if (password !== undefined && typeof password !== 'string') {
    throw new ServiceError('BAD_USER_INPUT', 'password: must be a string', { field: 'password' });
  }
  return { token: body.token, password };
}

export function registerSignInLinkRoute(
  app: FastifyInstance,
  {
    store,
    clock = systemClock,
    hashing,
    passwordHashCost,
  }: { store: Store; clock?: Clock; hashing: PasswordHashGate; passwordHashCost: number },
): void {
  app.post(SIGN_IN_LINK_ROUTE, async (request, reply) => {
    noStore(reply);
    let body: { token: string; password: string | undefined };
    try {
      body = readBody(request.body);
      const problem = body.password === undefined ? null : passwordProblem(body.password.slice(0, MAX_PASSWORD_LENGTH + 1));
      if (problem) throw new ServiceError('BAD_USER_INPUT', problem, { field: 'password' });
    } catch (error) {
      return sendRefusal(request, reply, error as ServiceError);
    }
    const tokenHash = hashSignInToken(body.token);
    const link = await store.members.findSignInLink(tokenHash, clock());
    if (!link) return sendRefusal(request, reply, linkNotUsable());
    if (body.password === undefined) return reply.code(200).send({ email: link.email });

    const { password } = body;
    // The same bound on hashes as sign-ins: a link held by one person must not let them queue hashes without end.
    const admitted = await hashing.admit((hash) => hash(() => hashPassword(password, passwordHashCost)));
    if (admitted.busy) return sendRefusal(request, reply, tooManyAtOnce());
    const passwordHash = admitted.value;
    const now = clock();
    const user = await store.members.useSignInLink(tokenHash, passwordHash, now);
    if (!user) return sendRefusal(request, reply, linkNotUsable());
    const id = newSessionId();
    const session = { idHash: hashSessionId(id), userId: user.userId, email: user.email, csrfToken: newCsrfToken() };
    await store.tenancy.createSession({ ...session, createdAt: now, expiresAt: slidingExpiry(now, now) });
    reply.header('set-cookie', sessionCookie(request, id, SESSION_IDLE_MS / 1000));
    return reply.code(200).send(await sessionBody(store, session));
  });
}
