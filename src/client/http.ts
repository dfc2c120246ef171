// One GraphQL request over HTTP, with the 429 wait and (for reads only) retries of failed transports.
import { ContentServiceError } from './errors.js';
import type { WaitInfo } from './types.js';

export interface TransportOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:4000` (a URL ending in `/graphql` is accepted too). */
  baseUrl: string;
  token: string;
  workspaceId: string;
  /** Upper bound of the time one request may spend waiting for the write budget, in ms (default 10 minutes). */
  maxRateLimitWaitMs?: number;
  /** Time allowed for one HTTP exchange, in ms (default 120 s). */
  timeoutMs?: number;
  /** Cancels every request of the client (and any wait). */
  signal?: AbortSignal;
  /** Told about every wait for the write budget, before it starts. */
  onWait?: (info: WaitInfo) => void;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  /** Name for errors and wait reports. */
  operation: string;
  /**
   * Reads are retried (3 more times, with back-off) when no answer came or the server answered 5xx/INTERNAL.
   * Writes never are: their outcome is unknown, and the error says so (`outcomeUnknown`).
   */
  idempotent: boolean;
  signal?: AbortSignal;
}

const DEFAULT_MAX_WAIT_MS = 10 * 60_000;
export const DEFAULT_TIMEOUT_MS = 120_000;
/** How many times a read is sent again after a transient failure. */
export const READ_RETRIES = 3;

/** No answer, or the server failed (5xx, INTERNAL): a read may be sent again. */
export function isTransientFailure(error: ContentServiceError): boolean {
  return error.outcomeUnknown || (error.status !== undefined && error.status >= 500) || error.code === 'INTERNAL';
}

/** Back-off before the n-th retry of a read (500 ms, 1 s, 2 s). */
export function readRetryDelayMs(retry: number): number {
  return 250 * 2 ** retry;
}

/** The body of one attempt of `Transport.send`, and whether a second attempt can have one (a stream cannot). */
export interface RawBody {
  make: () => { body: BodyInit; headers: Record<string, string> };
  resendable: () => boolean;
}

/** The URL of a path of the service (`/assets`), from the base URL (which may end in `/graphql`). */
export function serviceUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '').replace(/\/graphql$/, '')}${path}`;
}

export function graphqlUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/graphql') ? trimmed : `${trimmed}/graphql`;
}

/** Sleeps `ms`, or rejects with ABORTED when the signal fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortedError(signal: AbortSignal): ContentServiceError {
  const reason = signal.reason instanceof Error ? signal.reason.message : 'the operation was aborted';
  return new ContentServiceError(`Aborted: ${reason}`, { code: 'ABORTED', cause: signal.reason });
}

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date), or from `extensions.retryAfter`. */
export function retryAfterSeconds(header: string | null, extensions: Record<string, unknown>): number {
  if (header !== null && header.trim() !== '') {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  }
  const fromBody = extensions.retryAfter;
  if (typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0) return fromBody;
  return 1;
}

/** Retry-After plus jitter (up to 10 %, at least 50 ms and at most 1 s), so many clients do not come back at once. */
export function withJitter(seconds: number, random: () => number = Math.random): number {
  const base = seconds * 1000;
  const spread = Math.min(1000, Math.max(50, base * 0.1));
  return Math.round(base + random() * spread);
}

/** The Retry-After header of each 429 error, kept out of the error's public fields. */
const retryAfterHeaders = new WeakMap<ContentServiceError, string | null>();

interface GraphQLBody {
  data?: unknown;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

export class Transport {
  readonly url: string;
  private readonly options: TransportOptions;
  private readonly fetchImpl: typeof fetch;

  constructor(options: TransportOptions) {
    if (!options.baseUrl) throw new ContentServiceError('baseUrl: required', { code: 'BAD_USER_INPUT', field: 'baseUrl' });
    if (!options.token) throw new ContentServiceError('token: required', { code: 'BAD_USER_INPUT', field: 'token' });
    if (!options.workspaceId) {
      throw new ContentServiceError('workspaceId: required', { code: 'BAD_USER_INPUT', field: 'workspaceId' });
    }
    this.options = options;
    this.url = graphqlUrl(options.baseUrl);
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  /** Sends the request; returns `data`, or throws ContentServiceError. */
  request<T>(query: string, variables: Record<string, unknown>, options: RequestOptions): Promise<T> {
    const body = JSON.stringify({ query, variables });
    return this.exchange(options, (signal) => this.once<T>(body, options, signal));
  }

  /**
   * Sends a request that is not GraphQL (`path` of the service, such as `/assets`) with the client's headers, under
   * the same 429 waits and read retries as `request`: `body` makes the body of each attempt. Answers the parsed JSON
   * of a 2xx answer, or throws the ContentServiceError of its `errors` body (or its status).
   */
  send<T>(path: string, body: RawBody, options: RequestOptions & { timeoutMs?: number }): Promise<T> {
    const url = serviceUrl(this.options.baseUrl, path);
    return this.exchange(
      options,
      async (signal) => {
        if (signal?.aborted) throw abortedError(signal);
        const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
        const timeout = AbortSignal.timeout(timeoutMs);
        const made = body.make();
        let response: Response;
        let text: string;
        try {
          response = await this.fetchImpl(url, {
            method: 'POST',
            headers: { accept: 'application/json', ...this.authHeaders(), ...made.headers },
            body: made.body,
            signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
            ...(made.body instanceof ReadableStream ? { duplex: 'half' } : {}),
          });
          text = await response.text();
        } catch (cause) {
          const { operation, idempotent } = options;
          throw noAnswerError(cause, { operation, url, signal, timeout, timeoutMs, write: !idempotent });
        }
        if (!response.ok) answerData(response, text, options.operation, url);
        try {
          return JSON.parse(text) as T;
        } catch {
          throw new ContentServiceError(
            `${options.operation}: HTTP ${response.status} from ${url}: not JSON: ${text.slice(0, 200)}`,
            {
              code: 'HTTP_ERROR',
              status: response.status,
            },
          );
        }
      },
      body.resendable,
    );
  }

  private authHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.options.token}`, 'x-workspace-id': this.options.workspaceId, ...this.options.headers };
  }

  /**
   * Runs `attempt` until it answers: a 429 is waited out (Retry-After plus jitter, within maxRateLimitWaitMs) and sent
   * again, as long as `resendable()` says it can be; a read is sent again after a transient failure.
   */
  private async exchange<T>(
    options: RequestOptions,
    attempt: (signal: AbortSignal | undefined) => Promise<T>,
    resendable: () => boolean = () => true,
  ): Promise<T> {
    const signals = [this.options.signal, options.signal].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const maxWait = this.options.maxRateLimitWaitMs ?? DEFAULT_MAX_WAIT_MS;
    let waited = 0;
    let rateLimited = 0;
    let transportFailures = 0;
    for (;;) {
      try {
        return await attempt(signal);
      } catch (error) {
        if (!(error instanceof ContentServiceError)) throw error;
        if (error.code === 'RATE_LIMITED' && error.status === 429 && resendable()) {
          // Nothing was written: the same request is sent again after Retry-After.
          rateLimited += 1;
          const retryAfter = retryAfterSeconds(retryAfterHeaders.get(error) ?? null, error.extensions);
          const waitMs = withJitter(retryAfter);
          if (waited + waitMs > maxWait) {
            throw new ContentServiceError(
              `Record write budget exceeded: waited ${seconds(waited)} in total, the next wait of ${retryAfter} s would pass the limit of ${seconds(maxWait)}`,
              {
                code: 'RATE_LIMIT_WAIT_EXCEEDED',
                status: 429,
                requestId: error.requestId,
                extensions: error.extensions,
                cause: error,
              },
            );
          }
          this.options.onWait?.({
            retryAfterSeconds: retryAfter,
            waitMs,
            until: Date.now() + waitMs,
            operation: options.operation,
            attempt: rateLimited,
          });
          await sleep(waitMs, signal);
          waited += waitMs;
          continue;
        }
        if (options.idempotent && isTransientFailure(error) && transportFailures < READ_RETRIES) {
          transportFailures += 1;
          await sleep(readRetryDelayMs(transportFailures), signal);
          continue;
        }
        throw error;
      }
    }
  }

  private async once<T>(body: string, { operation, idempotent }: RequestOptions, signal: AbortSignal | undefined): Promise<T> {
    if (signal?.aborted) throw abortedError(signal);
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...this.authHeaders() },
        body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      text = await response.text();
    } catch (cause) {
      throw noAnswerError(cause, { operation, url: this.url, signal, timeout, timeoutMs, write: !idempotent });
    }
    return answerData<T>(response, text, operation, this.url);
  }
}

/**
 * The error for a request that got no answer: aborted by the caller, timed out, or a network failure. A write's
 * says that its outcome is unknown (it may have been stored); a read's has nothing to be unknown.
 */
export function noAnswerError(
  cause: unknown,
  request: {
    operation: string;
    url: string;
    signal: AbortSignal | undefined;
    timeout: AbortSignal;
    timeoutMs: number;
    write: boolean;
  },
): ContentServiceError {
  if (request.signal?.aborted) return abortedError(request.signal);
  const unknown = request.write ? ' (the outcome is unknown)' : '';
  if (request.timeout.aborted) {
    return new ContentServiceError(
      `${request.operation}: no answer from ${request.url} within ${request.timeoutMs} ms${unknown}`,
      { code: 'TIMEOUT', cause },
    );
  }
  const unreachable = unreachableMessage(cause, request.url);
  if (unreachable) return new ContentServiceError(unreachable, { code: 'NETWORK_ERROR', cause });
  const reason = cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause);
  return new ContentServiceError(`${request.operation}: no answer from ${request.url}: ${reason}${unknown}`, {
    code: 'NETWORK_ERROR',
    cause,
  });
}

/**
 * A connection that could not be made at all (nothing listens there, or the host name does not resolve) says
 * which address and what to do, rather than which call of the client ran into it.
 */
function unreachableMessage(cause: unknown, url: string): string | undefined {
  const code = cause instanceof Error ? (cause.cause as { code?: unknown } | undefined)?.code : undefined;
  const advice =
    'Is the service running there? Start it with `content-service serve` (or `npm start` in its folder), or give its address with --url or CONTENT_SERVICE_URL';
  if (code === 'ECONNREFUSED') return `Could not connect to ${url} (connection refused). ${advice}.`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `Could not find the host of ${url} (${String(code)}). ${advice}.`;
  return undefined;
}

/** `data` of a GraphQL answer, or the ContentServiceError its first error (or its HTTP status) describes. */
export function answerData<T>(response: Response, text: string, operation: string, url: string): T {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  let parsed: GraphQLBody | undefined;
  try {
    parsed = text === '' ? undefined : (JSON.parse(text) as GraphQLBody);
  } catch {
    parsed = undefined;
  }
  const errors = Array.isArray(parsed?.errors) ? parsed.errors : [];
  if (errors.length > 0) {
    const first = errors[0]!;
    const extensions = { ...(first.extensions ?? {}) };
    const code =
      typeof extensions.code === 'string'
        ? extensions.code
        : response.status === 429
          ? 'RATE_LIMITED'
          : response.status >= 500
            ? 'INTERNAL'
            : 'HTTP_ERROR';
    const error = new ContentServiceError(String(first.message), {
      code,
      field: typeof extensions.field === 'string' ? extensions.field : undefined,
      status: response.status,
      requestId,
      extensions,
      errors,
    });
    if (response.status === 429) retryAfterHeaders.set(error, response.headers.get('retry-after'));
    throw error;
  }
  if (response.status === 429) {
    const error = new ContentServiceError('Record write budget exceeded', { code: 'RATE_LIMITED', status: 429, requestId });
    retryAfterHeaders.set(error, response.headers.get('retry-after'));
    throw error;
  }
  if (!response.ok || parsed === undefined || parsed.data === undefined || parsed.data === null) {
    throw new ContentServiceError(`${operation}: HTTP ${response.status} from ${url}: ${text.slice(0, 200) || '(empty body)'}`, {
      code: response.status >= 500 ? 'INTERNAL' : 'HTTP_ERROR',
      status: response.status,
      requestId,
    });
  }
  return parsed.data as T;
}

/** Milliseconds as seconds for a message, to a tenth when not whole (a limit of 1500 ms is "1.5 s", not "2 s"). */
function seconds(ms: number): string {
  const tenths = Math.round(ms / 100) / 10;
  return `${Number.isInteger(tenths) ? tenths : tenths.toFixed(1)} s`;
}
