import {
  GraphQLError,
  getOperationAST,
  getVariableValues,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type SourceLocation,
  type OperationDefinitionNode,
  type OperationTypeNode,
  type ValidationRule,
} from 'graphql';
import { ServiceError } from '../domain/errors.js';
import { BoundedMap } from '../shared/bounded-map.js';
import { isPlainObject } from '../shared/json.js';
import { DEFAULT_LIMITS, documentNestingError, limitRules, type GraphQLLimits } from './limits.js';

/** The parser's token limit: a longer document is refused before it is parsed whole. */
const MAX_TOKENS = 10_000;
import { coerceVariablesQuickly } from './variables.js';

export interface GraphQLRequest {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | undefined;
}

/** A request ready to execute: parsed, validated, its operation chosen and its variables coerced. */
export interface PreparedOperation {
  request: GraphQLRequest;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  coercedVariables: Record<string, unknown>;
}

function badRequest(message: string, field?: string): ServiceError {
  return new ServiceError('BAD_USER_INPUT', message, field ? { field } : {});
}

/**
 * A GraphQL request error of a well-formed request: its document does not parse or validate, no operation
 * can be chosen, or its variables do not coerce. GraphQL over HTTP answers it 200 to a client that accepts
 * only `application/json`, 400 to one that accepts `application/graphql-response+json`.
 */
export class GraphQLRequestError extends ServiceError {
  constructor(
    message: string,
    field?: string,
    /** One per problem graphql-js found in the document, with where it is (line and column), for the answer's `errors`. */
    readonly documentErrors: readonly DocumentError[] = [],
  ) {
    super('BAD_USER_INPUT', message, field ? { field } : {});
  }
}

export interface DocumentError {
  message: string;
  locations?: readonly SourceLocation[];
}

function requestError(message: string, field?: string): GraphQLRequestError {
  return new GraphQLRequestError(message, field);
}

/** graphql-js's errors as one request error: the message joins them, and each keeps its locations. */
function documentError(errors: readonly GraphQLError[], field?: string): GraphQLRequestError {
  const documentErrors = errors.map(({ message, locations }) => (locations ? { message, locations } : { message }));
  return new GraphQLRequestError(errors.map((error) => error.message).join('\n'), field, documentErrors);
}

/** Checks the HTTP body shape: `{ query, variables?, operationName? }`. */
export function readGraphQLRequest(body: unknown): GraphQLRequest {
  if (Array.isArray(body)) {
    throw badRequest('Batched requests (a JSON array body) are not supported: send one operation per request');
  }
  if (!isPlainObject(body)) throw badRequest('Request body must be a JSON object with "query" and "variables"');
  const { query, variables, operationName } = body;
  if (typeof query !== 'string' || query.trim() === '') throw badRequest('query: must be a non-empty string', 'query');
  if (variables !== undefined && variables !== null && !isPlainObject(variables)) {
    throw badRequest('variables: must be a JSON object', 'variables');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw badRequest('operationName: must be a string', 'operationName');
  }
  if (body.extensions !== undefined && body.extensions !== null && !isPlainObject(body.extensions)) {
    throw badRequest('extensions: must be a JSON object', 'extensions');
  }
  return { query, variables: (variables as Record<string, unknown>) ?? {}, operationName: operationName ?? undefined };
}

/**
 * Reads a GET request's URL parameters, `query`, `variables` and `extensions` (JSON text) and `operationName`,
 * into the same shape as a POST body.
 */
export function readGraphQLQueryString(parameters: unknown): GraphQLRequest {
  const values = isPlainObject(parameters) ? parameters : {};
  const body: Record<string, unknown> = {};
  for (const name of ['query', 'operationName', 'variables', 'extensions']) {
    const value = values[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw badRequest(`${name}: must be given once`, name);
    body[name] = name === 'variables' || name === 'extensions' ? parseJsonParameter(name, value) : value;
  }
  return readGraphQLRequest(body);
}

function parseJsonParameter(name: string, text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(`${name}: must be a JSON object`, name);
  }
}

/** The kind of operation a request would run, or undefined when its document does not parse (validation tells). */
export function operationKindOf(request: GraphQLRequest): OperationTypeNode | undefined {
  const document = parsedForKind(request.query);
  return document ? getOperationAST(document, request.operationName)?.operation : undefined;
}

/** Parsed documents (null: does not parse) by query text, for operationKindOf: GET requests repeat their queries. */
const parsedForKindCache = new BoundedMap<string, DocumentNode | null>(200);

function parsedForKind(query: string): DocumentNode | null {
  let document = parsedForKindCache.get(query);
  if (document === undefined) {
    try {
      document = documentNestingError(query, MAX_TOKENS) ? null : parse(query, { maxTokens: MAX_TOKENS });
    } catch {
      document = null;
    }
    if (query.length <= 20_000) parsedForKindCache.set(query, document);
  }
  return document;
}

/** Parsed and validated documents by query text: a script sends the same few queries again and again. */
export class DocumentCache {
  private readonly entries: BoundedMap<string, DocumentNode | GraphQLRequestError>;
  private readonly limitRules: ValidationRule[];

  constructor(
    private readonly schema: GraphQLSchema,
    limits: Partial<GraphQLLimits> = {},
    capacity = 500,
  ) {
    this.limitRules = limitRules({ ...DEFAULT_LIMITS, ...limits });
    this.entries = new BoundedMap(capacity);
  }

  get(query: string): DocumentNode {
    let entry = this.entries.get(query);
    if (entry === undefined) {
      entry = this.parseAndValidate(query);
      if (query.length <= 20_000) this.entries.set(query, entry);
    }
    if (entry instanceof GraphQLRequestError) throw entry;
    return entry;
  }

  private parseAndValidate(query: string): DocumentNode | GraphQLRequestError {
    const tooDeep = documentNestingError(query, MAX_TOKENS);
    if (tooDeep) return documentError([tooDeep]);
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: MAX_TOKENS });
    } catch (error) {
      return error instanceof GraphQLError ? documentError([error]) : requestError((error as Error).message);
    }
    // The limits first and alone: a document over them is not worth the standard rules' work.
    const limitErrors = validate(this.schema, document, this.limitRules);
    if (limitErrors.length > 0) return documentError(limitErrors);
    const errors = validate(this.schema, document, specifiedRules);
    if (errors.length > 0) return documentError(errors);
    return document;
  }
}

export function prepareOperation(schema: GraphQLSchema, cache: DocumentCache, request: GraphQLRequest): PreparedOperation {
  const document = cache.get(request.query);
  const operation = getOperationAST(document, request.operationName);
  if (!operation) {
    throw requestError(
      request.operationName
        ? `operationName: no operation named "${request.operationName}" in the document`
        : 'operationName: is required when the document has several operations',
      'operationName',
    );
  }
  if (!schema.getRootType(operation.operation)) {
    throw requestError(`This endpoint has no ${operation.operation} operations: it is read only`);
  }
  const quick = coerceVariablesQuickly(schema, operation, request.variables);
  if (quick) return { request, document, operation, coercedVariables: quick };
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables, { maxErrors: 10 });
  if (coerced.errors) throw documentError(coerced.errors, 'variables');
  return { request, document, operation, coercedVariables: coerced.coerced };
}
