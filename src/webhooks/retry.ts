// When a delivery is tried again (spec/webhooks.md): network errors, timeouts, 408, 429 and 5xx are retried on a
// schedule with jitter (429 waits for its Retry-After); other answers settle the delivery at once.
import type { DeliveryStatus } from '../store/store.js';

/** Seconds to wait before each retry: about 24 hours in all. */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [5, 30, 120, 600, 1800, 3600, 10800, 21600, 43200];
/** A delay is moved by up to this share either way, so that retries of many deliveries do not arrive together. */
export const JITTER = 0.2;
/** The longest Retry-After honoured. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

/** `WEBHOOK_RETRY_DELAYS`: comma-separated seconds, e.g. `5,30,120`; throws naming the variable. */
export function parseRetryDelays(text: string, name = 'WEBHOOK_RETRY_DELAYS'): number[] {
  const delays = text.split(',').map((part) => part.trim());
  if (delays.some((part) => part === '' || !Number.isFinite(Number(part)) || Number(part) < 0)) {
    throw new Error(`${name}: must be comma-separated seconds, each 0 or more (e.g. 5,30,120), got "${text}"`);
  }
  return delays.map(Number);
}

export interface AttemptOutcome {
  statusCode: number | null;
  retryAfterSeconds: number | null;
}

export function isSuccess(outcome: AttemptOutcome): boolean {
  return outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
}

/** No answer (network error, timeout), 408, 429 and 5xx are worth trying again. */
export function isRetryable(outcome: AttemptOutcome): boolean {
  const code = outcome.statusCode;
  return code === null || code === 408 || code === 429 || code >= 500;
}

export interface NextStep {
  status: DeliveryStatus;
  /** Epoch milliseconds, when `status` is pending. */
  nextAttemptAt: number | null;
}

/** What follows an attempt: `attempts` counts it; retries run out after one per delay of the schedule. */
export function nextStep(
  attempts: number,
  outcome: AttemptOutcome,
  delaysSeconds: readonly number[],
  now: number,
  random: () => number = Math.random,
): NextStep {
  if (isSuccess(outcome)) return { status: 'succeeded', nextAttemptAt: null };
  if (!isRetryable(outcome) || attempts > delaysSeconds.length) return { status: 'failed', nextAttemptAt: null };
  if (outcome.statusCode === 429 && outcome.retryAfterSeconds !== null) {
    return { status: 'pending', nextAttemptAt: now + Math.min(outcome.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * 1000 };
  }
  const delay = delaysSeconds[attempts - 1]! * 1000;
  const jittered = delay * (1 - JITTER + 2 * JITTER * random());
  return { status: 'pending', nextAttemptAt: now + Math.round(jittered) };
}
