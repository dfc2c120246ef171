// One delivery attempt: a POST to the webhook's URL, to an address the SSRF guard has just checked. The host is
// resolved once, every address it resolves to is checked, and the connection goes to those addresses (the request's
// `lookup` answers with them), so a DNS answer that changes between the check and the connect cannot steer the
// request inside. The Host header and TLS SNI stay the URL's host name. Connections are kept alive per origin and
// set of checked addresses, so a pooled connection is always one made to an address checked for that origin.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveWebhookTarget, WebhookUrlError, type ResolvedAddress } from './address-guard.js';
import { signWebhook } from './signing.js';

export interface SendOutcome {
  /** The receiver's status code; null when no response came (the error says why). */
  statusCode: number | null;
  /** What went wrong before a response came ("connection refused", "timeout after 10000 ms", a refused URL). */
  error: string | null;
  durationMs: number;
  /** A response's Retry-After, in seconds from now (from seconds or an HTTP date); null without one. */
  retryAfterSeconds: number | null;
}

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * An attempt as the delivery worker hands it over: what to sign instead of the signature, so that the HMAC over the
 * body is computed where the request is sent (the sender thread), not on the server's event loop.
 */
export interface UnsignedSendRequest extends Omit<SendRequest, 'headers'> {
  signature: { id: string; timestampSeconds: number; secrets: readonly string[] };
}

/** The request with its Standard Webhooks headers. */
function signRequest({ signature, ...request }: UnsignedSendRequest): SendRequest {
  return { ...request, headers: signWebhook({ ...signature, body: request.body }) };
}

/** Signs the attempt and makes it (sendWebhook), where it runs: the sender thread, or the worker without one. */
export function signAndSend(request: UnsignedSendRequest): Promise<SendOutcome> {
  return sendWebhook(signRequest(request));
}

const USER_AGENT = 'content-service-webhooks/1';
/** How much of a response body is read (and thrown away) before the connection is closed. */
const RESPONSE_BYTES_READ = 64 * 1024;

const ERROR_TEXTS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EAI_AGAIN: 'name lookup failed (temporary)',
};

/** A short text for a network error: its meaning for the well-known codes, the code or message otherwise (no stack). */
function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code && ERROR_TEXTS[code]) return ERROR_TEXTS[code];
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AggregateError && error.errors.length > 0) return errorText(error.errors[0]);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/** Retry-After as seconds from now: a non-negative integer, or an HTTP date (a past date is 0). Else null. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date names its month ("Wed, 21 Oct 2026 07:28:00 GMT"); Date.parse would take "-5" for a year.
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** A lookup that answers with the addresses already resolved and checked, whatever the host name asked for. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      callback(
        null,
        addresses.map(({ address, family }) => ({ address, family })),
      );
      return;
    }
    const wanted =
      options.family === 4 || options.family === 6 ? addresses.find(({ family }) => family === options.family) : undefined;
    const chosen = wanted ?? addresses[0]!;
    callback(null, chosen.address, chosen.family);
  };
}

/** Keep-alive agents, one per URL origin and set of checked addresses: a pooled connection goes where it was checked. */
const agents = new Map<string, HttpAgent>();
/** Origins (with their addresses) whose idle connections are kept; the least recently used beyond it is closed. */
const MAX_AGENTS = 256;
/** An idle pooled connection is closed after this long. */
const IDLE_MS = 15_000;

function agentFor(url: URL, addresses: readonly ResolvedAddress[]): HttpAgent {
  const key = `${url.protocol}//${url.host} ${addresses.map(({ address }) => address).join(',')}`;
  let agent = agents.get(key);
  if (agent) {
    agents.delete(key); // moved to the end: the most recently used
  } else {
    const options = { keepAlive: true, timeout: IDLE_MS };
    agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
  }
  agents.set(key, agent);
  if (agents.size > MAX_AGENTS) {
    const [oldestKey, oldest] = agents.entries().next().value as [string, HttpAgent];
    agents.delete(oldestKey);
    oldest.destroy();
  }
  return agent;
}

/** Reads and throws away up to RESPONSE_BYTES_READ of the body; the connection goes back to the pool at its end. */
function discardBody(response: IncomingMessage, done: () => void): void {
  let read = 0;
  response.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > RESPONSE_BYTES_READ) response.destroy();
  });
  response.on('error', () => {});
  response.on('close', done);
}

type Outcome = Omit<SendOutcome, 'durationMs'>;

/**
 * One POST on a pooled or new connection to the checked addresses. A pooled connection the receiver closed just as
 * it was reused fails with ECONNRESET or EPIPE before anything was answered: `stale` says so, to try a new one.
 */
function post(
  request: SendRequest,
  url: URL,
  addresses: readonly ResolvedAddress[],
  timeoutMs: number,
): Promise<Outcome & { stale: boolean }> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Outcome, stale = false) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, stale });
    };
    const options: RequestOptions = {
      method: 'POST',
      headers: {
        ...request.headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(request.body)),
        'user-agent': USER_AGENT,
      },
      lookup: pinnedLookup(addresses),
      agent: agentFor(url, addresses),
    };
    const timeoutText = `timeout after ${request.timeoutMs} ms`;
    let timedOut = false;
    // Bounds the connection and the response's head, then the reading of the body (which is not waited for).
    const timer = setTimeout(() => {
      timedOut = true;
      outgoing.destroy(new Error(timeoutText));
    }, timeoutMs);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(url, options, (response) => {
      finish({
        statusCode: response.statusCode ?? null,
        error: null,
        retryAfterSeconds: parseRetryAfter(response.headers['retry-after']),
      });
      discardBody(response, () => clearTimeout(timer));
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const stale = outgoing.reusedSocket && !timedOut && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      finish({ statusCode: null, error: timedOut ? timeoutText : errorText(error), retryAfterSeconds: null }, stale);
    });
    outgoing.end(request.body);
  });
}

/**
 * Makes one delivery attempt and says how it went; it never throws. The timeout covers the name lookup, the
 * connection and the response's head; redirects are not followed (a 3xx is an answer like any other non-2xx).
 * Connections are kept alive and reused for the same origin and checked addresses.
 */
export async function sendWebhook(request: SendRequest): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutText = `timeout after ${request.timeoutMs} ms`;

  let addresses: ResolvedAddress[];
  let url: URL;
  let lookupTimer: NodeJS.Timeout | undefined;
  try {
    const target = await Promise.race([
      resolveWebhookTarget(request.url, { allowPrivate: request.allowPrivate }),
      new Promise<never>((_, reject) => {
        lookupTimer = setTimeout(() => reject(new Error(timeoutText)), request.timeoutMs);
      }),
    ]);
    addresses = target.addresses;
    url = target.url;
  } catch (error) {
    const text =
      error instanceof WebhookUrlError || (error instanceof Error && error.message === timeoutText)
        ? error.message
        : errorText(error);
    return { statusCode: null, error: text, durationMs: elapsed(), retryAfterSeconds: null };
  } finally {
    clearTimeout(lookupTimer);
  }

  const remaining = () => Math.max(1, request.timeoutMs - (performance.now() - started));
  let outcome = await post(request, url, addresses, remaining());
  if (outcome.stale) outcome = await post(request, url, addresses, remaining());
  const { stale: _stale, ...answer } = outcome;
  return { ...answer, durationMs: elapsed() };
}
