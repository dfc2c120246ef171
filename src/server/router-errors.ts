import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import { UNEXPECTED_MESSAGE } from '../graphql/execute.js';
import { MethodNotAllowedError, sendRefusal } from './reply.js';

// The router's own answers (a URL it cannot decode, an unknown path, a method a route does not take, a
// malformed or too slow HTTP request) in the contract's errors shape, never Fastify's `{"error","code":"FST_…"}`.

/** Fastify's `frameworkErrors`: a URL that does not decode, a parameter over the length limit. */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendRefusal(request, reply, new ServiceError('BAD_USER_INPUT', 'The URL is not valid: it does not decode'));
    return;
  }
  request.log.error({ err: error }, 'unexpected router error');
  sendRefusal(request, reply, new ServiceError('INTERNAL', UNEXPECTED_MESSAGE));
}

const GRAPHQL_PATHS = [/^\/graphql$/, /^\/public\/[^/]+\/[^/]+\/graphql$/];

/** No route for the method and path: 405 on a GraphQL route's path (it takes GET and POST), 404 elsewhere. */
export function answerNotFound(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0]!;
  if (GRAPHQL_PATHS.some((pattern) => pattern.test(path))) {
    return sendRefusal(
      request,
      reply,
      new MethodNotAllowedError('GET, POST', `Method ${request.method} is not allowed here: use GET or POST`),
    );
  }
  return sendRefusal(request, reply, new ServiceError('NOT_FOUND', `No route ${request.method} ${path}`));
}

/**
 * node:http's `clientError`: a request that does not parse, headers too large, or a client too slow to send
 * its request (the request and headers timeouts). Answered on the raw socket, which is then closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = clientErrorAnswer(error.code);
  const body = JSON.stringify({ errors: [{ message, extensions: { code: 'BAD_USER_INPUT' } }] });
  // Only when no answer has started on this connection (as node's own handler does).
  const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !response?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function clientErrorAnswer(code: string | undefined): { status: number; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'The request did not arrive in time' };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'The request headers are too large' };
  return { status: 400, message: 'The request is not valid HTTP' };
}
