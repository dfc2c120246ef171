// One delivery attempt: a POST to the webhook's URL, to an address the SSRF guard has just checked. The host is
// resolved once, every address it resolves to is checked, and the connection goes to those addresses (the request's
// `lookup` answers with them), so a DNS answer that changes between the check and the connect cannot steer the
// request inside. The Host header and TLS SNI stay the URL's host name.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveWebhookTarget, WebhookUrlError, type ResolvedAddress } from './address-guard.js';

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

/** Reads and throws away up to RESPONSE_BYTES_READ of the body, then lets the connection go. */
function discardBody(response: IncomingMessage): void {
  let read = 0;
  response.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > RESPONSE_BYTES_READ) response.destroy();
  });
  response.on('error', () => {});
}

/**
 * Makes one delivery attempt and says how it went; it never throws. The timeout covers the name lookup, the
 * connection and the response's head; redirects are not followed (a 3xx is an answer like any other non-2xx).
 */
export async function sendWebhook(request: SendRequest): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutText = `timeout after ${request.timeoutMs} ms`;
  const deadline = AbortSignal.timeout(request.timeoutMs);

  let addresses: ResolvedAddress[];
  let url: URL;
  try {
    const target = await Promise.race([
      resolveWebhookTarget(request.url, { allowPrivate: request.allowPrivate }),
      new Promise<never>((_, reject) => deadline.addEventListener('abort', () => reject(new Error(timeoutText)), { once: true })),
    ]);
    addresses = target.addresses;
    url = target.url;
  } catch (error) {
    const text =
      error instanceof WebhookUrlError || (error instanceof Error && error.message === timeoutText)
        ? error.message
        : errorText(error);
    return { statusCode: null, error: text, durationMs: elapsed(), retryAfterSeconds: null };
  }

  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, durationMs: elapsed() });
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
      agent: false,
      signal: deadline,
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(url, options, (response) => {
      const retryAfter = response.headers['retry-after'];
      finish({ statusCode: response.statusCode ?? null, error: null, retryAfterSeconds: parseRetryAfter(retryAfter) });
      discardBody(response);
    });
    outgoing.on('error', (error) => {
      finish({ statusCode: null, error: deadline.aborted ? timeoutText : errorText(error), retryAfterSeconds: null });
    });
    outgoing.end(request.body);
  });
}
