import type { FastifyReply, FastifyRequest } from 'fastify';
import { OperationTypeNode } from 'graphql';
import { ServiceError } from '../domain/errors.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../domain/size-limits.js';
import { SerializedBody, serviceErrorBody, statusFor, type ErrorBody, type ResponseBody } from '../graphql/execute.js';
import { GraphQLRequestError, operationKindOf, readGraphQLQueryString, type GraphQLRequest } from '../graphql/request.js';

const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

/** Answers in `application/graphql-response+json` when the client asks for it, JSON otherwise. */
export function sendGraphQL(request: FastifyRequest, reply: FastifyReply, status: number, body: ResponseBody | SerializedBody) {
  return reply
    .code(status)
    .type(graphQLContentType(request))
    .send(body instanceof SerializedBody ? body.json : JSON.stringify(body));
}

/** The content type of the request's answers: the one thing in them that depends on a request header (Accept). */
export function graphQLContentType(request: FastifyRequest): string {
  return contentTypeFor(request.headers.accept);
}

/** The content type of the answers to a request with this Accept header. */
export function contentTypeFor(accept: string | undefined): string {
  return acceptsGraphQLResponse(accept) ? GRAPHQL_RESPONSE_TYPE_UTF8 : JSON_TYPE_UTF8;
}

function acceptsGraphQLResponse(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes(GRAPHQL_RESPONSE_TYPE);
}

const GRAPHQL_RESPONSE_TYPE_UTF8 = `${GRAPHQL_RESPONSE_TYPE}; charset=utf-8`;
const JSON_TYPE_UTF8 = 'application/json; charset=utf-8';

/**
 * An answer with the HTTP caching of its representation (the delivery route; delivery-cache.ts). Its headers go
 * out with a 200 that has no errors, and with a 304; any other answer keeps the headers the route set before.
 */
export class CacheableAnswer {
  constructor(
    /** The answer; null when the client's copy is current (If-None-Match): 304, and nothing was run. */
    readonly body: ResponseBody | SerializedBody | null,
    /** ETag, Cache-Control and Vary of the representation. */
    readonly headers: { etag: string; 'cache-control': string; vary: string },
    /** `If-None-Match: *`: whatever copy the client has is current if this answer is one caches may keep. */
    readonly anyCopyIsCurrent = false,
  ) {}
}

/**
 * Runs a GraphQL request's work and answers it: 200 with its body, or the refusal's status when it
 * was refused before execution. Anything else goes on to the error handler (500, masked).
 */
export async function answerGraphQL(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (onUnexpected: (error: unknown) => void) => Promise<ResponseBody | SerializedBody | CacheableAnswer>,
  maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
) {
  try {
    let failed = false;
    const result = await work((error) => {
      failed = true;
      request.log.error({ err: error }, 'unexpected error while executing');
    });
    // An answer is what its tag says it is (the same query on the same content gives it again), errors and all
    // (an unknown model, a refused filter, an answer too large) — unless something failed while it was made.
    const cacheable = result instanceof CacheableAnswer && !failed ? result : null;
    const body = result instanceof CacheableAnswer ? result.body : result;
    if (body === null) return sendNotModified(reply, result as CacheableAnswer);
    const json = body instanceof SerializedBody ? body.json : JSON.stringify(body);
    if (isLargerThan(json, maxResponseBytes)) {
      if (cacheable) setCacheHeaders(reply, cacheable);
      return sendGraphQL(request, reply, 200, { errors: [answerTooLarge(json, maxResponseBytes)] });
    }
    const hasErrors = body instanceof SerializedBody ? body.hasErrors : body.errors !== undefined;
    if (cacheable) {
      if (cacheable.anyCopyIsCurrent && !hasErrors) return sendNotModified(reply, cacheable);
      setCacheHeaders(reply, cacheable);
    }
    return sendGraphQL(request, reply, 200, new SerializedBody(json));
  } catch (error) {
    if (error instanceof ServiceError) return sendRefusal(request, reply, error);
    throw error;
  }
}

/** 304 (RFC 9110 §15.4.5): no body, and the headers a 200 would have had for caches to update their copy with. */
function sendNotModified(reply: FastifyReply, answer: CacheableAnswer) {
  setCacheHeaders(reply, answer);
  return reply.code(304).send();
}

function setCacheHeaders(reply: FastifyReply, { headers }: CacheableAnswer): void {
  reply.header('etag', headers.etag).header('cache-control', headers['cache-control']);
  // Added to what is there: CORS with a list of origins has already put `Origin` in it.
  const vary = reply.getHeader('vary');
  reply.header('vary', vary === undefined ? headers.vary : `${String(vary)}, ${headers.vary}`);
}

/** Whether the text is over `maxBytes` of UTF-8; measured only when its length says it could be. */
function isLargerThan(text: string, maxBytes: number): boolean {
  return text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes;
}

/** The whole answer in place of one over the limit: never a part of it. */
function answerTooLarge(json: string, maxBytes: number): ErrorBody {
  return {
    message: `The answer would be ${Buffer.byteLength(json)} bytes, more than the ${maxBytes} one response may carry; ask for fewer records (a smaller limit) or fewer fields`,
    extensions: { code: 'PAYLOAD_TOO_LARGE', maxResponseBytes: maxBytes },
  };
}

/**
 * Answers a request refused before execution with its status; a GraphQL request error (GraphQLRequestError)
 * is 200 to a client that accepts only `application/json`, as GraphQL over HTTP asks.
 */
export function sendRefusal(request: FastifyRequest, reply: FastifyReply, error: ServiceError) {
  if (error.code === 'RATE_LIMITED') reply.header('retry-after', String(error.extensions.retryAfter));
  if (error instanceof MethodNotAllowedError) {
    reply.header('allow', error.allow);
    return sendGraphQL(request, reply, 405, { errors: [serviceErrorBody(error)] });
  }
  if (error instanceof GraphQLRequestError) {
    const status = acceptsGraphQLResponse(request.headers.accept) ? statusFor(error) : 200;
    return sendGraphQL(request, reply, status, { errors: requestErrorBodies(error) });
  }
  return sendGraphQL(request, reply, statusFor(error), { errors: [serviceErrorBody(error)] });
}

/** One error per problem in the document, each with its `locations`, so that a user can find it in the query. */
function requestErrorBodies(error: GraphQLRequestError): ErrorBody[] {
  if (error.documentErrors.length === 0) return [serviceErrorBody(error)];
  const extensions = { code: error.code, ...error.extensions };
  return error.documentErrors.map(({ message, locations }) =>
    locations ? { message, locations, extensions } : { message, extensions },
  );
}

/** A request method the route does not take (405); `allow` lists the ones it does. */
export class MethodNotAllowedError extends ServiceError {
  constructor(
    readonly allow: string,
    message: string,
  ) {
    super('BAD_USER_INPUT', message);
  }
}

/** GraphQL over HTTP: a mutation sent by GET is refused (GET must be safe), whatever else it carries. */
export function mutationByGetError(): MethodNotAllowedError {
  return new MethodNotAllowedError('POST', 'Mutations must be sent by POST, not GET');
}

/** A GraphQL request from a GET's URL parameters; a mutation there is refused with 405. */
export function readGetRequest(query: unknown): GraphQLRequest {
  const request = readGraphQLQueryString(query);
  if (operationKindOf(request) === OperationTypeNode.MUTATION) throw mutationByGetError();
  return request;
}
