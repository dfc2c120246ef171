// The admin application's sign-in: POST /admin/session (sign in), GET /admin/session (who am I, CSRF token; 204
// when the request carries no session cookie at all), DELETE /admin/session (sign out). The session then
// authenticates POST /graphql (see admin-route.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notAuthorized } from '../auth/authenticate.js';
import { PasswordHashGate } from '../auth/password-gate.js';
import { dummyPasswordHash, MAX_PASSWORD_LENGTH, verifyPassword } from '../auth/passwords.js';
import {
  clearedSessionCookie,
  CSRF_HEADER,
  findActiveSession,
  forbiddenCsrf,
  hashSessionId,
  headerValue,
  newCsrfToken,
  newSessionId,
  readCookie,
  sameSecret,
  SESSION_COOKIE,
  SESSION_IDLE_MS,
  sessionCookie,
  slidingExpiry,
} from '../auth/sessions.js';
import { SignInThrottle } from '../auth/sign-in-throttle.js';
import { memoryLimiters } from '../budget/write-budget.js';
import { systemClock, type Clock } from '../clock.js';
import { ServiceError } from '../domain/errors.js';
import { requireStorableText } from '../domain/text.js';
import { isPlainObject } from '../shared/json.js';
import type { LimiterFactory, SessionRecord, Store } from '../store/store.js';
import { DEFAULTS, type SignInConfig } from './config.js';
import { sendRefusal } from './reply.js';

export interface SignInOptions extends SignInConfig {
  /** Where the sign-in limits are counted: the write budget's store (Redis, PostgreSQL or memory). */
  limiters: LimiterFactory;
}

const DEFAULT_SIGN_IN_OPTIONS: SignInOptions = { ...DEFAULTS.signIn, limiters: memoryLimiters };

export interface SessionRoutesOptions extends Partial<SignInOptions> {
  store: Store;
  /** The time that decides session expiry (default the system clock). */
  clock?: Clock;
}

export const SESSION_PATH = '/admin/session';
const MAX_EMAIL_LENGTH = 320;

interface SessionBody {
  user: { email: string };
  csrfToken: string;
  workspaces: { id: string; orgSlug: string; slug: string; role: string }[];
}

export async function sessionBody(
  store: Store,
  session: Pick<SessionRecord, 'userId' | 'email' | 'csrfToken'>,
): Promise<SessionBody> {
  const workspaces = await store.tenancy.workspacesOf(session.userId);
  return { user: { email: session.email }, csrfToken: session.csrfToken, workspaces };
}

function badInput(field: string, reason: string): ServiceError {
  return new ServiceError('BAD_USER_INPUT', `${field}: ${reason}`, { field });
}

function readCredentials(body: unknown): { email: string; password: string } {
  if (!isPlainObject(body))
    throw new ServiceError('BAD_USER_INPUT', 'Request body must be a JSON object with "email" and "password"');
  const { email, password } = body;
  if (typeof email !== 'string' || email.trim() === '') throw badInput('email', 'must be a non-empty string');
  if (typeof password !== 'string' || password === '') throw badInput('password', 'must be a non-empty string');
  requireStorableText('email', email);
  requireStorableText('password', password);
  return { email: email.trim().toLowerCase(), password };
}

export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store');
}

function tooManyAttempts(retryAfter: number): ServiceError {
  return new ServiceError('RATE_LIMITED', `Too many sign-in attempts; try again in ${retryAfter} seconds`, { retryAfter });
}

export function tooManyAtOnce(): ServiceError {
  return new ServiceError('RATE_LIMITED', 'Too many sign-ins at once; try again in a second', { retryAfter: 1 });
}

export function registerSessionRoutes(
  app: FastifyInstance,
  { store, clock = systemClock, ...signInOptions }: SessionRoutesOptions,
): { hashing: PasswordHashGate; passwordHashCost: number } {
  const options: SignInOptions = { ...DEFAULT_SIGN_IN_OPTIONS, ...withoutUndefined(signInOptions) };
  const throttle = new SignInThrottle(options, options.limiters);
  const hashing = new PasswordHashGate(options.passwordHashConcurrency, options.passwordHashQueue);
  // Computed now, so that the first sign-in for an unknown email does not take twice as long as the others.
  void dummyPasswordHash(options.passwordHashCost);

  app.post(SESSION_PATH, async (request, reply) => {
    noStore(reply);
    let credentials: { email: string; password: string };
    try {
      credentials = readCredentials(request.body);
    } catch (error) {
      return sendRefusal(request, reply, error as ServiceError);
    }
    const { password } = credentials;
    const email = credentials.email.slice(0, MAX_EMAIL_LENGTH + 1);
    // Refused before any work (no count, no lookup) when the process already has its fill of sign-ins.
    const admitted = await hashing.admit(async (hash) => {
      const retryAfter = await throttle.charge(request.ip, email);
      if (retryAfter !== null) return tooManyAttempts(retryAfter);
      // The same work whether or not the email is known: one lookup and one password hash.
      const user = email.length <= MAX_EMAIL_LENGTH ? await store.tenancy.findUserByEmail(email) : null;
      const storedHash = user?.passwordHash ?? (await dummyPasswordHash(options.passwordHashCost));
      const matches = await hash(() =>
        verifyPassword(password.slice(0, MAX_PASSWORD_LENGTH + 1), storedHash, options.passwordHashCost),
      );
      return !user || user.passwordHash === null || !matches ? notAuthorized() : user;
    });
    if (admitted.busy) return sendRefusal(request, reply, tooManyAtOnce());
    if (admitted.value instanceof ServiceError) return sendRefusal(request, reply, admitted.value);
    const user = admitted.value;

    await throttle.refund(request.ip, email);
    const now = clock();
    await store.tenancy.deleteExpiredSessions(now);
    const id = newSessionId();
    const session = { idHash: hashSessionId(id), userId: user.id, email: user.email, csrfToken: newCsrfToken() };
    await store.tenancy.createSession({ ...session, createdAt: now, expiresAt: slidingExpiry(now, now) });
    reply.header('set-cookie', sessionCookie(request, id, SESSION_IDLE_MS / 1000));
    return reply.code(200).send(await sessionBody(store, session));
  });

  app.get(SESSION_PATH, async (request, reply) => {
    noStore(reply);
    // Signed out is a normal answer to "who am I", not a refusal: a browser logs every 401 as an error, and the
    // admin application asks this on each load. A cookie naming no live session is still refused (and cleared).
    if (readCookie(request, SESSION_COOKIE) === undefined) return reply.code(204).send();
    const active = await findActiveSession(store, request, clock());
    if (!active) return refuseWithoutSession(request, reply);
    if (active.refreshedCookie) reply.header('set-cookie', active.refreshedCookie);
    return reply.code(200).send(await sessionBody(store, active.session));
  });

  app.delete(SESSION_PATH, async (request, reply) => {
    noStore(reply);
    const active = await findActiveSession(store, request, clock());
    if (!active) return refuseWithoutSession(request, reply);
    if (!sameSecret(headerValue(request.headers[CSRF_HEADER]), active.session.csrfToken)) {
      return sendRefusal(request, reply, forbiddenCsrf());
    }
    await store.tenancy.deleteSession(active.session.idHash);
    reply.header('set-cookie', clearedSessionCookie(request));
    return reply.code(204).send();
  });
  return { hashing, passwordHashCost: options.passwordHashCost };
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** 401 `Not authorized`; a cookie that names no live session is cleared. */
function refuseWithoutSession(request: FastifyRequest, reply: FastifyReply) {
  if (readCookie(request, SESSION_COOKIE) !== undefined) reply.header('set-cookie', clearedSessionCookie(request));
  return sendRefusal(request, reply, notAuthorized());
}
