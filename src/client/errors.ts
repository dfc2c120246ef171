/** The one error type of the client: every failure of a request, whatever its cause, is a ContentServiceError. */
export class ContentServiceError extends Error {
  /**
   * `extensions.code` of the server (`UNAUTHENTICATED`, `FORBIDDEN`, `BAD_USER_INPUT`, `NOT_FOUND`, `CONFLICT`,
   * `RATE_LIMITED`, `COST_EXCEEDS_BUDGET`, `PAYLOAD_TOO_LARGE`, `INTERNAL`), or one of the client's own:
   * `NETWORK_ERROR` (no answer; for a write the outcome is unknown), `TIMEOUT` (no answer in time; outcome unknown),
   * `ABORTED` (the AbortSignal fired), `HTTP_ERROR` (an answer that is not a GraphQL response),
   * `RATE_LIMIT_WAIT_EXCEEDED` (429 answers kept coming past the wait limit).
   */
  readonly code: string;
  /** The field the error is about (`extensions.field`, or the `<field>:` prefix of the message), when there is one. */
  readonly field: string | undefined;
  /** HTTP status of the answer; undefined when there was no answer. */
  readonly status: number | undefined;
  /** `x-request-id` of the answer, to find the request in the server's log. */
  readonly requestId: string | undefined;
  /** The whole `extensions` object of the first GraphQL error (e.g. `retryAfter`, `cost`, `budget`). */
  readonly extensions: Record<string, unknown>;
  /** Every GraphQL error of the answer (the first one gives message, code and field). */
  readonly errors: { message: string; extensions?: Record<string, unknown> }[];

  constructor(
    message: string,
    details: {
      code: string;
      field?: string | undefined;
      status?: number | undefined;
      requestId?: string | undefined;
      extensions?: Record<string, unknown>;
      errors?: { message: string; extensions?: Record<string, unknown> }[];
      cause?: unknown;
    },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ContentServiceError';
    this.code = details.code;
    this.field = details.field ?? fieldOfMessage(message);
    this.status = details.status;
    this.requestId = details.requestId;
    this.extensions = details.extensions ?? {};
    this.errors = details.errors ?? [{ message, extensions: { code: details.code } }];
  }

  /** True when the request may have been carried out although no answer came (network error, timeout). */
  get outcomeUnknown(): boolean {
    return this.code === 'NETWORK_ERROR' || this.code === 'TIMEOUT';
  }
}

/** `price: expected a number` → `price`; `name.en: …` → `name.en`. */
export function fieldOfMessage(message: string): string | undefined {
  const match = /^([A-Za-z0-9_$][\w$.\-[\]]*): /.exec(message);
  return match?.[1];
}
