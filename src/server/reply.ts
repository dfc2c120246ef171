import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import { SerializedBody, serviceErrorBody, statusFor, type ResponseBody } from '../graphql/execute.js';

const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

/** Answers in `application/graphql-response+json` when the client asks for it, JSON otherwise. */
export function sendGraphQL(request: FastifyRequest, reply: FastifyReply, status: number, body: ResponseBody | SerializedBody) {
  const accept = request.headers.accept;
  const type = accept !== undefined && accept.includes(GRAPHQL_RESPONSE_TYPE) ? GRAPHQL_RESPONSE_TYPE_UTF8 : JSON_TYPE_UTF8;
  return reply.code(status).type(type).send(body instanceof SerializedBody ? body.json : JSON.stringify(body));
}

const GRAPHQL_RESPONSE_TYPE_UTF8 = `${GRAPHQL_RESPONSE_TYPE}; charset=utf-8`;
const JSON_TYPE_UTF8 = 'application/json; charset=utf-8';

/**
 * Runs a GraphQL request's work and answers it: 200 with its body, or the refusal's status when it
 * was refused before execution. Anything else goes on to the error handler (500, masked).
 */
export async function answerGraphQL(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (onUnexpected: (error: unknown) => void) => Promise<ResponseBody | SerializedBody>,
) {
  try {
    const body = await work((error) => request.log.error({ err: error }, 'unexpected error while executing'));
    return sendGraphQL(request, reply, 200, body);
  } catch (error) {
    if (error instanceof ServiceError) return sendRefusal(request, reply, error);
    throw error;
  }
}

export function sendRefusal(request: FastifyRequest, reply: FastifyReply, error: ServiceError) {
  if (error.code === 'RATE_LIMITED') reply.header('retry-after', String(error.extensions.retryAfter));
  return sendGraphQL(request, reply, statusFor(error), { errors: [serviceErrorBody(error)] });
}
