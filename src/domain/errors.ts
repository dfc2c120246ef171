export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'COST_EXCEEDS_BUDGET'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNAVAILABLE'
  | 'INTERNAL';

/** The one error type of the service: a message for people, a code and details for programs. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly extensions: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.extensions = extensions;
  }
}

/** A problem with one field of an input: `path` starts with the field key. */
export interface FieldIssue {
  path: string;
  reason: string;
}

export function issueMessage(issue: FieldIssue): string {
  return `${issue.path}: ${issue.reason}`;
}

export function fieldError(issue: FieldIssue, code: ErrorCode = 'BAD_USER_INPUT'): ServiceError {
  return new ServiceError(code, issueMessage(issue), { field: issue.path.split(/[.[]/)[0] });
}

export const SKU_EXISTS = 'A record with this SKU already exists';
export const SLUG_EXISTS = 'A model with this slug already exists';
