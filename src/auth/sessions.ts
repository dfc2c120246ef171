// Browser sessions of the admin application: a random id in an HttpOnly cookie (only its SHA-256 is stored),
// a CSRF token the page sends back in a header, 12 hours of idle time and 7 days at most.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import type { SessionRecord, Store } from '../store/store.js';
import { notAuthorized, type Authenticated } from './authenticate.js';

export const SESSION_COOKIE = 'cs_session';
/** A session ends 12 hours after its last use (sliding)… */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** …and at the latest 7 days after sign-in, however much it is used. */
export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** Use of a session is written at most this often (the expiry slides by at most this much less). */
export const SESSION_TOUCH_INTERVAL_MS = 60 * 1000;
export const CSRF_HEADER = 'x-csrf-token';

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** When a session used at `now` expires: 12 hours on, but never later than 7 days after it began. */
export function slidingExpiry(createdAt: number, now: number): number {
  return Math.min(now + SESSION_IDLE_MS, createdAt + SESSION_MAX_MS);
}

export function forbiddenCsrf(): ServiceError {
  return new ServiceError('FORBIDDEN', 'Forbidden: missing or wrong CSRF token');
}

/** The value of one cookie of the request's Cookie header (the first, when repeated). */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() !== name) continue;
    const value = part.slice(index + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Did the request reach us (or the TLS-terminating proxy in front of us) over HTTPS? */
export function cameOverHttps(request: FastifyRequest): boolean {
  if (request.protocol === 'https') return true;
  const forwarded = headerValue(request.headers['x-forwarded-proto']);
  return forwarded?.split(',')[0]?.trim().toLowerCase() === 'https';
}

function cookieAttributes(request: FastifyRequest, maxAgeSeconds: number): string {
  return `; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}${cameOverHttps(request) ? '; Secure' : ''}`;
}

export function sessionCookie(request: FastifyRequest, id: string, maxAgeSeconds = SESSION_IDLE_MS / 1000): string {
  return `${SESSION_COOKIE}=${id}${cookieAttributes(request, Math.max(0, Math.floor(maxAgeSeconds)))}`;
}

export function clearedSessionCookie(request: FastifyRequest): string {
  return `${SESSION_COOKIE}=${cookieAttributes(request, 0)}`;
}

/** Constant-time comparison of two strings (of any length). */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const left = createHash('sha256').update(given).digest();
  const right = createHash('sha256').update(expected).digest();
  return timingSafeEqual(left, right);
}

export interface ActiveSession {
  session: SessionRecord;
  /** Set when the expiry moved: the cookie should be sent again with a fresh Max-Age. */
  refreshedCookie: string | undefined;
}

/**
 * The live session the request's cookie names, or null (no cookie, unknown, expired). Use slides the expiry
 * forward, written at most once a minute.
 */
export async function findActiveSession(store: Store, request: FastifyRequest, now = Date.now()): Promise<ActiveSession | null> {
  const id = readCookie(request, SESSION_COOKIE);
  if (!id || id.length > 200) return null;
  const idHash = hashSessionId(id);
  const session = await store.tenancy.findSession(idHash);
  if (!session) return null;
  if (session.expiresAt <= now) {
    await store.tenancy.deleteSession(idHash);
    return null;
  }
  let refreshedCookie: string | undefined;
  if (now - session.lastSeen >= SESSION_TOUCH_INTERVAL_MS) {
    const expiresAt = slidingExpiry(session.createdAt, now);
    await store.tenancy.touchSession(idHash, now, expiresAt);
    session.lastSeen = now;
    session.expiresAt = expiresAt;
    refreshedCookie = sessionCookie(request, id, (expiresAt - now) / 1000);
  }
  return { session, refreshedCookie };
}

/**
 * Authenticates an admin API request by its session cookie: the session must be live, the x-csrf-token header
 * must equal the session's CSRF token (403 otherwise), and the session's user must be a member of the
 * x-workspace-id workspace (401 otherwise, the same answer as for a bad token).
 */
export async function authenticateSession(
  store: Store,
  request: FastifyRequest,
  now = Date.now(),
): Promise<Authenticated & { refreshedCookie: string | undefined }> {
  const active = await findActiveSession(store, request, now);
  if (!active) throw notAuthorized();
  const { session } = active;
  if (!sameSecret(headerValue(request.headers[CSRF_HEADER]), session.csrfToken)) throw forbiddenCsrf();
  const workspaceId = headerValue(request.headers['x-workspace-id']);
  if (!workspaceId || workspaceId.length > 200) throw notAuthorized();
  const member = await store.tenancy.findMember(workspaceId, session.userId);
  if (!member) throw notAuthorized();
  return {
    actor: { workspaceId, userId: session.userId, role: member.role },
    writeBudget: member.writeBudget,
    viaSession: true,
    refreshedCookie: active.refreshedCookie,
  };
}
