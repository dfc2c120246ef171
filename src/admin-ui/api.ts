// The admin application's only ways to the server: the session endpoints (`/admin/session`) and the same
// GraphQL API every client uses (`POST /graphql`), authenticated by the session cookie plus the CSRF token and
// the workspace id as headers.
import type { Session } from './types.js';

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly extensions: Record<string, unknown>;
  /** Seconds, from Retry-After on a 429. */
  readonly retryAfter: number | undefined;

  constructor(message: string, code: string, status: number, extensions: Record<string, unknown> = {}, retryAfter?: number) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.extensions = extensions;
    this.retryAfter = retryAfter;
  }
}

interface ErrorBody {
  errors?: { message?: unknown; extensions?: Record<string, unknown> }[];
}

let csrfToken = '';
let workspaceId = '';
const unauthenticatedListeners: (() => void)[] = [];

export function setWorkspace(id: string): void {
  workspaceId = id;
}

export function currentWorkspaceId(): string {
  return workspaceId;
}

/** Called when the server answers 401 to a GraphQL request: the session ended (signed out elsewhere, expired). */
export function onUnauthenticated(listener: () => void): void {
  unauthenticatedListeners.push(listener);
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorFrom(response: Response, body: unknown): ApiError {
  return errorOf(response.status, response.headers.get('retry-after'), body);
}

/** The error of an answer (the JSON `errors` body every route answers with): its first message and code. */
export function errorOf(status: number, retryAfterValue: string | null, body: unknown): ApiError {
  const first = (body as ErrorBody | undefined)?.errors?.[0];
  const retryAfterHeader = Number(retryAfterValue);
  const retryAfter = Number.isFinite(retryAfterHeader) && retryAfterHeader > 0 ? retryAfterHeader : undefined;
  if (first && typeof first.message === 'string') {
    const extensions = first.extensions ?? {};
    const code = typeof extensions.code === 'string' ? extensions.code : 'INTERNAL';
    const retry = retryAfter ?? (typeof extensions.retryAfter === 'number' ? extensions.retryAfter : undefined);
    return new ApiError(first.message, code, status, extensions, retry);
  }
  const fallback = status === 401 ? 'UNAUTHENTICATED' : status === 403 ? 'FORBIDDEN' : 'INTERNAL';
  return new ApiError(`The server answered HTTP ${status}`, fallback, status, {}, retryAfter);
}

async function send(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, { credentials: 'same-origin', ...init });
  } catch {
    throw new ApiError('The server could not be reached. Check the connection and try again.', 'NETWORK', 0);
  }
}

function acceptSession(body: unknown): Session {
  const session = body as Session;
  csrfToken = session.csrfToken;
  return session;
}

/** POSTs `payload` as JSON to a session endpoint and returns the answer's body; throws a refusal as an ApiError. */
async function postJson(path: string, payload: Record<string, string>): Promise<unknown> {
  const response = await send(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(payload),
  });
  const body = await readJson(response);
  if (!response.ok) throw errorFrom(response, body);
  return body;
}

export async function signIn(email: string, password: string): Promise<Session> {
  return acceptSession(await postJson('/admin/session', { email, password }));
}

/** The email of a one-time sign-in link's user (POST /admin/sign-in-link without a password); throws when it cannot be used. */
export async function checkSignInLink(token: string): Promise<{ email: string }> {
  return (await postJson('/admin/sign-in-link', { token })) as { email: string };
}

/** Sets the password of a sign-in link's user, uses the link up and signs in. */
export async function useSignInLink(token: string, password: string): Promise<Session> {
  return acceptSession(await postJson('/admin/sign-in-link', { token, password }));
}

/**
 * The current session, or null when not signed in: 204 without a session cookie, 401 for a cookie whose session
 * ended (the server clears it).
 */
export async function getSession(): Promise<Session | null> {
  const response = await send('/admin/session', { method: 'GET', headers: { accept: 'application/json' } });
  if (response.status === 204) return null;
  const body = await readJson(response);
  if (response.status === 401) return null;
  if (!response.ok) throw errorFrom(response, body);
  return acceptSession(body);
}

export async function signOut(): Promise<void> {
  const response = await send('/admin/session', { method: 'DELETE', headers: { 'x-csrf-token': csrfToken } });
  csrfToken = '';
  if (!response.ok && response.status !== 401) throw errorFrom(response, await readJson(response));
}

/**
 * The headers of the session's requests beside GraphQL (an upload, POST /assets): the CSRF token and the workspace.
 * Read them for each request: signing in again replaces the token.
 */
export function sessionHeaders(): Record<string, string> {
  return { 'x-csrf-token': csrfToken, 'x-workspace-id': workspaceId };
}

/** The session ended (a 401 of a request beside GraphQL): the application shows the sign-in page. */
export function sessionEnded(): void {
  for (const listener of unauthenticatedListeners) listener();
}

/** Runs a GraphQL operation in the current workspace and returns `data`; throws the first error as an ApiError. */
export async function gql<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
  try {
    return await gqlOnce<T>(query, variables);
  } catch (error) {
    // Signing in again in another tab replaces the session cookie, and with it the CSRF token this tab holds:
    // read the current session once and repeat the request (the server wrote nothing for a refused one).
    if (error instanceof ApiError && error.status === 403 && /CSRF/i.test(error.message)) {
      if ((await getSession()) !== null) return gqlOnce<T>(query, variables);
    }
    throw error;
  }
}

async function gqlOnce<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const response = await send('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-csrf-token': csrfToken,
      'x-workspace-id': workspaceId,
    },
    body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
  });
  const body = (await readJson(response)) as ({ data?: T } & ErrorBody) | undefined;
  if (response.status === 401) sessionEnded();
  if (!response.ok || (body?.errors?.length ?? 0) > 0 || body?.data == null) throw errorFrom(response, body);
  return body.data;
}
