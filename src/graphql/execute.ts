import { execute, GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { ServiceError, type ErrorCode } from '../domain/errors.js';
import { compiledOperation } from './compiled-execute.js';
import type { PreparedOperation } from './request.js';

export interface ErrorBody {
  message: string;
  path?: readonly (string | number)[];
  extensions: { code: ErrorCode } & Record<string, unknown>;
}

export interface ResponseBody {
  data?: unknown;
  errors?: ErrorBody[];
}

/** A response body already serialised to JSON text (the compiled execution path writes the answer directly). */
export class SerializedBody {
  constructor(readonly json: string) {}
}

export const UNEXPECTED_MESSAGE = 'Unexpected error.';

export function serviceErrorBody(error: ServiceError): ErrorBody {
  return { message: error.message, extensions: { code: error.code, ...error.extensions } };
}

/**
 * Runs a prepared operation; unexpected errors are reported to `onUnexpected` and masked in the answer.
 * Operations the compiled path covers (compiled-execute.ts) are answered by it, as JSON text; the rest by graphql-js.
 */
export async function executeOperation(
  schema: GraphQLSchema,
  prepared: PreparedOperation,
  contextValue: unknown,
  onUnexpected: (error: unknown) => void,
): Promise<ResponseBody | SerializedBody> {
  const compiled = compiledOperation(schema, prepared.document, prepared.operation);
  if (compiled) {
    const { data, errors } = await compiled.run(contextValue, prepared.coercedVariables, {});
    if (errors.length === 0) return new SerializedBody(`{"data":${data}}`);
    const formatted = errors.map((error) => formatError(error, onUnexpected));
    return new SerializedBody(`{"data":${data},"errors":${JSON.stringify(formatted)}}`);
  }
  const result = (await execute({
    schema,
    document: prepared.document,
    operationName: prepared.request.operationName,
    variableValues: prepared.request.variables,
    contextValue,
    rootValue: {},
  })) as ExecutionResult;
  const body: ResponseBody = { data: result.data ?? null };
  if (result.errors?.length) body.errors = result.errors.map((error) => formatError(error, onUnexpected));
  return body;
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
  INTERNAL: 500,
};

/** The HTTP status of a request refused before execution. */
export function statusFor(error: ServiceError): number {
  return STATUS_BY_CODE[error.code];
}
