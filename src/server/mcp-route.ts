// `POST /mcp`: the MCP server over Streamable HTTP (stateless: one server and transport per request), for agents
// that run elsewhere. The caller is authenticated like /graphql before the body is read; each tool then calls this
// same server's /graphql in process (app.inject) with the caller's own headers, so the role, the validation and the
// write budget are exactly those of the admin API (docs/decisions.md, "MCP").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../auth/authenticate.js';
import { headerValue } from '../auth/sessions.js';
import { systemClock, type Clock } from '../clock.js';
import { ServiceError } from '../domain/errors.js';
import { serviceErrorBody } from '../graphql/execute.js';
import type { Store } from '../store/store.js';
import { MethodNotAllowedError, sendRefusal } from './reply.js';

export interface McpRouteOptions {
  store: Store;
  clock?: Clock;
}

/**
 * The MCP SDK (and zod under it) is loaded on the first request to /mcp, not when the server starts: most servers
 * never serve an agent, and it is a third of the start-up time.
 */
function importMcpModules() {
  return Promise.all([import('../mcp/server.js'), import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')]);
}
let mcpModules: ReturnType<typeof importMcpModules> | undefined;
function loadMcpModules() {
  mcpModules ??= importMcpModules();
  return mcpModules;
}

/** The base URL the tools' client is given; requests to it never leave the process (see `injectFetch`). */
const IN_PROCESS_BASE_URL = 'http://in-process';

export function registerMcpRoute(app: FastifyInstance, { store, clock = systemClock }: McpRouteOptions): void {
  const authenticateFirst = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      await authenticate(store, request.headers.authorization, headerValue(request.headers['x-workspace-id']), clock());
    } catch (error) {
      if (error instanceof ServiceError) return sendRefusal(request, reply, error);
      throw error;
    }
  };

  app.post('/mcp', { onRequest: authenticateFirst }, async (request, reply) => {
    const [{ createMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await loadMcpModules();
    const server = createMcpServer({
      connection: {
        baseUrl: IN_PROCESS_BASE_URL,
        token: bearerToken(request.headers.authorization),
        workspaceId: headerValue(request.headers['x-workspace-id'])!,
        fetch: injectFetch(app, request),
      },
      log: (line) => request.log.warn(line),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // The answer may be a stream (progress while a write waits for the budget): both are closed when it ends.
    reply.raw.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
    return reply.send(await inContractShape(response));
  });

  // Stateless: no stream to open with GET, no session to end with DELETE.
  const notAllowed = (request: FastifyRequest, reply: FastifyReply) =>
    sendRefusal(request, reply, new MethodNotAllowedError('POST', 'Method not allowed: use POST /mcp'));
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
}

/**
 * The transport's own refusals of a request it would not dispatch (406: an Accept without text/event-stream, 415,
 * a body that is no JSON-RPC message) come as JSON-RPC errors without an id; every route answers refusals in the
 * contract's errors shape (CONTRACT.md), so they are rewritten into it, status kept. MCP clients read the status
 * of such an answer, not its body. Answers of dispatched messages (status 200 or 202) pass as they are.
 */
async function inContractShape(response: Response): Promise<Response> {
  if (response.status < 400) return response;
  const text = await response.text();
  let message = text;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') message = parsed.error.message;
  } catch {
    // Not JSON: its text is the message.
  }
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json; charset=utf-8');
  headers.delete('content-length');
  const body = JSON.stringify({ errors: [serviceErrorBody(new ServiceError('BAD_USER_INPUT', message))] });
  return new Response(body, { status: response.status, headers });
}

function bearerToken(authorization: string | undefined): string {
  return /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1] ?? '';
}

/** The request as the SDK's web-standard transport reads it: method, URL and headers (the body is parsed already). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, String(value));
  }
  return new Request(`http://${request.host}${request.url}`, { method: request.method, headers });
}

/**
 * A `fetch` for the tools' client that sends each request through this application's router, without a socket. The
 * outer request's host and scheme go with it, so that URLs in the answers (an asset's `url`) point where the MCP
 * client reached the service.
 */
function injectFetch(app: FastifyInstance, outer: FastifyRequest): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const sent = Object.fromEntries(new Headers(init?.headers).entries());
    sent.host = outer.host;
    const proto = headerValue(outer.headers['x-forwarded-proto']);
    if (proto) sent['x-forwarded-proto'] = proto;
    const answer = await app.inject({
      method: (init?.method ?? 'POST') as 'POST',
      url: url.pathname + url.search,
      headers: sent,
      payload: await bodyBytes(init?.body),
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else if (value !== undefined) headers.set(name, String(value));
    }
    return new Response(new Uint8Array(answer.rawPayload), { status: answer.statusCode, headers });
  };
}

/** A fetch body as inject takes it: text as it is, anything else (FormData, a stream, bytes) encoded as fetch would. */
async function bodyBytes(body: RequestInit['body']): Promise<string | Buffer> {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  return Buffer.from(await new Response(body).arrayBuffer());
}
