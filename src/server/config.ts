import { DEFAULT_PASSWORD_HASH_COST } from '../auth/passwords.js';
import type { MediaConfig } from './media-setup.js';
import { DEFAULT_HISTORY_KEEP } from '../domain/revisions.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_RECORD_SIZE_LIMITS } from '../domain/size-limits.js';

export interface ServerConfig {
  port: number;
  host: string;
  databaseUrl: string;
  writeBudget: number;
  /** The window the write budget is counted over, 1 to 60 seconds (env WRITE_BUDGET_WINDOW_SECONDS; default a minute). */
  writeBudgetWindowSeconds: number;
  bodyLimitBytes: number;
  /** Origins allowed to read the delivery route from a browser; `*` for any. */
  corsOrigins: string[] | '*';
  logLevel: string;
  /** Whether `__schema` / `__type` queries are answered (env INTROSPECTION=on|off). */
  introspection: boolean;
  /** Bytes of JSON one field value of a record may hold (env MAX_FIELD_BYTES). */
  maxFieldBytes: number;
  /** Bytes of JSON one record's data may hold (env MAX_RECORD_BYTES). */
  maxRecordBytes: number;
  /** Bytes of JSON one answer may carry (env MAX_RESPONSE_BYTES). */
  maxResponseBytes: number;
  /** The largest body the delivery route (`/public/…`) reads (env PUBLIC_BODY_LIMIT_BYTES). */
  publicBodyLimitBytes: number;
  /**
   * Seconds shared caches (a CDN) may serve a delivery answer without revalidating it, and serve it stale while
   * they revalidate (s-maxage, stale-while-revalidate); 0: revalidate every time (--delivery-max-age, env DELIVERY_MAX_AGE).
   */
  deliveryMaxAge: number;
  /** Revisions kept per record; 0 keeps none (--history-keep, env HISTORY_KEEP). */
  historyKeep: number;
  /**
   * On PostgreSQL: keep the content versions read while this is the only process on the schema (env SOLE_SERVER;
   * default true). Off for databases whose advisory locks are no-ops.
   */
  soleServer: boolean;
  /** Time a client has to send a whole request, headers and body (env REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** Time a client has to send the request headers (env HEADERS_TIMEOUT_MS; at most the request timeout). */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection stays open (env KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
  /** Open connections at most; connections beyond are closed at once (env MAX_CONNECTIONS). */
  maxConnections: number;
  /** Sign-in limits and the bound on password hashes at once (env SIGN_IN_ATTEMPTS_PER_MINUTE_PER_*, PASSWORD_HASH_*). */
  signIn: SignInConfig;
  webhooks: WebhookConfig;
  /** Media storage, the upload limit, image transforms, the public URL of assets. */
  media: MediaConfig;
}

export interface WebhookConfig {
  /** Webhooks may go to loopback and private addresses: development and tests only (--webhook-allow-private). */
  allowPrivate: boolean;
  /** One delivery attempt's time limit (env WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Seconds before each retry (env WEBHOOK_RETRY_DELAYS, comma-separated). */
  retryDelaysSeconds: readonly number[];
  /** Attempts in flight at once to one webhook, started in event order (env WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK). */
  maxInFlightPerWebhook: number;
}

export interface SignInConfig {
  /** Failed sign-in attempts per minute from one client address, whatever the email. */
  attemptsPerMinutePerAddress: number;
  /** Failed sign-in attempts per minute at one email, whatever the address. */
  attemptsPerMinutePerEmail: number;
  /** Password hashes checked at once in one process. */
  passwordHashConcurrency: number;
  /** Sign-ins that may wait for a free hashing slot; beyond them a sign-in is refused at once with 429. */
  passwordHashQueue: number;
  /** The scrypt cost (log2 of N) of the passwords this process sets, and of its check for an unknown email. */
  passwordHashCost: number;
}

export const DEFAULTS = {
  port: 4000,
  host: '127.0.0.1',
  writeBudget: 5000,
  writeBudgetWindowSeconds: 60,
  bodyLimitBytes: 10 * 1024 * 1024,
  corsOrigins: '*' as const,
  logLevel: 'info',
  introspection: true,
  ...DEFAULT_RECORD_SIZE_LIMITS,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  publicBodyLimitBytes: 64 * 1024,
  deliveryMaxAge: 0,
  historyKeep: DEFAULT_HISTORY_KEEP,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
  signIn: {
    attemptsPerMinutePerAddress: 8,
    attemptsPerMinutePerEmail: 5,
    passwordHashConcurrency: 2,
    passwordHashQueue: 8,
    passwordHashCost: DEFAULT_PASSWORD_HASH_COST,
  },
  webhookTimeoutMs: 10_000,
  webhookMaxInFlightPerWebhook: 16,
};
