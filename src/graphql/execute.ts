import { execute, GraphQLError, type GraphQLSchema } from 'graphql';
import { ServiceError, type ErrorCode } from '../domain/errors.js';
import { compiledOperation } from './compiled-execute.js';
import type { PreparedOperation } from './request.js';

export interface ErrorBody {
  message: string;
  path?: readonly (string | number)[];
  locations?: readonly { line: number; column: number }[];
  extensions: { code: ErrorCode } & Record<string, unknown>;
}

export interface ResponseBody {
  data?: unknown;
  errors?: ErrorBody[];
}

/** A response body already serialised to JSON text (the compiled execution path writes the answer directly). */
export class SerializedBody {
  constructor(
    readonly json: string,
    /** Whether the answer carries `errors` (such an answer is not one for HTTP caches to keep). */
    readonly hasErrors = false,
  ) {}
}

export const UNEXPECTED_MESSAGE = 'Unexpected error.';

export function serviceErrorBody(error: ServiceError): ErrorBody {
  return { message: error.message, extensions: { code: error.code, ...error.extensions } };
}

/** An operation's answer before formatting: `data` as JSON text, and the errors in graphql-js's order. */
export interface RawAnswer {
  data: string;
  errors: readonly GraphQLError[];
}

/**
 * Runs a prepared operation on its compiled plan (compiled-execute.ts), with the variables prepareOperation coerced;
 * the plan answers as graphql-js does (test/graphql/compiled-differential.test.ts). Every operation on the
 * service's schemas has a plan, @skip/@include and introspection included. An operation with an interface or a
 * union (a schema the service does not have) runs on graphql-js's `execute`, which coerces the raw variables
 * again: graphql 16 exports no way to run an operation on variables already coerced.
 */
export async function runOperation(
  schema: GraphQLSchema,
  prepared: PreparedOperation,
  contextValue: unknown,
): Promise<RawAnswer> {
  const compiled = compiledOperation(schema, prepared.document, prepared.operation);
  if (compiled) return compiled.run(contextValue, prepared.coercedVariables, {});
  const result = await execute({
    schema,
    document: prepared.document,
    operationName: prepared.request.operationName,
    variableValues: prepared.request.variables,
    contextValue,
    rootValue: {},
  });
  return { data: JSON.stringify(result.data ?? null), errors: result.errors ?? [] };
}

/** Runs a prepared operation; unexpected errors are reported to `onUnexpected` and masked in the answer. */
export async function executeOperation(
  schema: GraphQLSchema,
  prepared: PreparedOperation,
  contextValue: unknown,
  onUnexpected: (error: unknown) => void,
): Promise<ResponseBody | SerializedBody> {
  const { data, errors } = await runOperation(schema, prepared, contextValue);
  if (errors.length === 0) return new SerializedBody(`{"data":${data}}`);
  const formatted = errors.map((error) => formatError(error, onUnexpected));
  return new SerializedBody(`{"data":${data},"errors":${JSON.stringify(formatted)}}`, true);
}

function formatError(error: GraphQLError, onUnexpected: (error: unknown) => void): ErrorBody {
  const original = error.originalError;
  const path = error.path;
  if (original instanceof ServiceError) return { ...serviceErrorBody(original), ...(path ? { path } : {}) };
  if (original && !(original instanceof GraphQLError)) {
    onUnexpected(original);
    return { message: UNEXPECTED_MESSAGE, ...(path ? { path } : {}), extensions: { code: 'INTERNAL' } };
  }
  return { message: error.message, ...(path ? { path } : {}), extensions: { code: 'BAD_USER_INPUT' } };
}

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  BAD_USER_INPUT: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  COST_EXCEEDS_BUDGET: 413,
  PAYLOAD_TOO_LARGE: 413,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** The HTTP status of a request refused before execution. */
export function statusFor(error: ServiceError): number {
  return STATUS_BY_CODE[error.code];
}
