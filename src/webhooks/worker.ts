// The delivery worker (spec/webhooks.md), started by `serve`: takes the due deliveries from the outbox, signs and
// sends them, and records each attempt. Writes never wait for it: they only add rows to the outbox.
import { systemClock, type Clock } from '../clock.js';
import { renderEventBody } from '../domain/webhook-events.js';
import { newId } from '../ids.js';
import type { ClaimedDelivery, WebhookStore } from '../store/store.js';
import { nextStep } from './retry.js';
import { sendWebhook, type SendOutcome, type SendRequest } from './send.js';
import { signWebhook } from './signing.js';

export interface WorkerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface WorkerOptions {
  store: WebhookStore;
  logger: WorkerLogger;
  allowPrivate: boolean;
  /** One attempt's time limit (WEBHOOK_TIMEOUT_MS, default 10 s). */
  timeoutMs: number;
  retryDelaysSeconds: readonly number[];
  /** Attempts in flight at once, all webhooks together. */
  maxInFlight?: number;
  /** Attempts in flight at once to one webhook (started in event order). */
  maxInFlightPerWebhook?: number;
  /** How often the outbox is read when nothing wakes the worker (other processes' events, retries coming due). */
  pollIntervalMs?: number;
  clock?: Clock;
  /** Sends one attempt (tests of the worker's rules could pass another; serve uses the real one). */
  send?: (request: SendRequest) => Promise<SendOutcome>;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_IN_FLIGHT = 32;
const DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK = 8;
const DEFAULT_POLL_INTERVAL_MS = 500;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** The delivery log keeps settled deliveries and their attempts this long. */
export const LOG_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Claims due deliveries in event order (each claim leased, so that no other process sends them meanwhile), starts
 * them in that order, at most `maxInFlightPerWebhook` per webhook (the rest wait here, in order), and records each
 * attempt with what comes next (nextStep). Wakes when this process commits events, when an attempt ends, when the
 * next retry is due, and at least every `pollIntervalMs`.
 */
export class DeliveryWorker {
  private readonly store: WebhookStore;
  private readonly logger: WorkerLogger;
  private readonly clock: Clock;
  private readonly send: (request: SendRequest) => Promise<SendOutcome>;
  private readonly maxInFlight: number;
  private readonly maxPerWebhook: number;
  private readonly pollIntervalMs: number;
  /** How long a claim holds: enough for every attempt this worker may hold to wait its turn and time out. */
  readonly leaseMs: number;
  private running = false;
  private looping = false;
  private wakeAgain = false;
  private timer: NodeJS.Timeout | null = null;
  private lastPrune = 0;
  /** Deliveries in hand per webhook: those in flight and those waiting for their turn. */
  private readonly perWebhook = new Map<string, { sending: number; waiting: ClaimedDelivery[] }>();
  private held = 0;
  private readonly attempts = new Set<Promise<void>>();

  constructor(private readonly options: WorkerOptions) {
    this.store = options.store;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.send = options.send ?? sendWebhook;
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.maxPerWebhook = Math.min(options.maxInFlightPerWebhook ?? DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK, this.maxInFlight);
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.leaseMs = (Math.ceil(this.maxInFlight / this.maxPerWebhook) + 2) * options.timeoutMs;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.store.onEventsWritten(this.wake);
    this.wake();
  }

  /** Takes no more deliveries and waits for the attempts in flight; deliveries still waiting are left to their lease. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const state of this.perWebhook.values()) {
      this.held -= state.waiting.length;
      state.waiting = [];
    }
    while (this.attempts.size > 0) await Promise.allSettled([...this.attempts]);
  }

  private readonly wake = (): void => {
    if (!this.running) return;
    if (this.looping) {
      this.wakeAgain = true;
      return;
    }
    void this.loop();
  };

  private async loop(): Promise<void> {
    this.looping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let delay = this.pollIntervalMs;
    try {
      do {
        this.wakeAgain = false;
        const free = this.maxInFlight - this.held;
        if (free <= 0) break;
        const now = this.clock();
        const claimed = await this.store.claimDue({
          token: newId(),
          now,
          leaseUntil: now + this.leaseMs,
          limit: free,
          excludeWebhookIds: this.busyWebhooks(),
        });
        for (const delivery of claimed) this.take(delivery);
        if (claimed.length === free) this.wakeAgain = true;
      } while (this.running && this.wakeAgain);
      if (this.running) {
        const due = await this.store.nextDueAt();
        if (due !== null) delay = Math.min(delay, Math.max(due - this.clock(), 5));
        await this.pruneNowAndThen();
      }
    } catch (error) {
      this.logger.error({ err: error }, 'webhooks: reading the outbox failed; trying again');
    } finally {
      this.looping = false;
    }
    if (!this.running) return;
    if (this.wakeAgain) {
      this.wake();
      return;
    }
    this.timer = setTimeout(this.wake, delay);
    this.timer.unref();
  }

  /** Webhooks with as many deliveries in hand as are sent to one at once. */
  private busyWebhooks(): string[] {
    const busy: string[] = [];
    for (const [webhookId, state] of this.perWebhook) {
      if (state.sending + state.waiting.length >= this.maxPerWebhook) busy.push(webhookId);
    }
    return busy;
  }

  private take(delivery: ClaimedDelivery): void {
    let state = this.perWebhook.get(delivery.webhookId);
    if (!state) {
      state = { sending: 0, waiting: [] };
      this.perWebhook.set(delivery.webhookId, state);
    }
    this.held++;
    state.waiting.push(delivery);
    this.startWaiting(delivery.webhookId);
  }

  /** Starts the webhook's waiting deliveries, in the order they were claimed, while it has room. */
  private startWaiting(webhookId: string): void {
    const state = this.perWebhook.get(webhookId);
    if (!state) return;
    while (state.sending < this.maxPerWebhook && state.waiting.length > 0) {
      const delivery = state.waiting.shift()!;
      state.sending++;
      const attempt = this.attempt(delivery)
        .catch((error: unknown) =>
          this.logger.error({ err: error, deliveryId: delivery.id }, 'webhooks: recording an attempt failed'),
        )
        .finally(() => {
          this.attempts.delete(attempt);
          state.sending--;
          this.held--;
          if (state.sending === 0 && state.waiting.length === 0) this.perWebhook.delete(webhookId);
          else this.startWaiting(webhookId);
          this.wake();
        });
      this.attempts.add(attempt);
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const started = this.clock();
    const body = renderEventBody(delivery.event);
    const secrets = [delivery.secret];
    if (delivery.previousSecret !== null && (delivery.previousSecretUntil ?? 0) > started) secrets.push(delivery.previousSecret);
    const headers = signWebhook({ id: delivery.event.id, timestampSeconds: Math.floor(started / 1000), body, secrets });
    const outcome = await this.send({
      url: delivery.url,
      body,
      headers,
      timeoutMs: this.options.timeoutMs,
      allowPrivate: this.options.allowPrivate,
    });
    const at = this.clock();
    const attempts = delivery.attempts + 1;
    const next = nextStep(attempts, outcome, this.options.retryDelaysSeconds, at);
    const recorded = await this.store.recordAttempt({
      deliveryId: delivery.id,
      claimToken: delivery.claimToken,
      statusCode: outcome.statusCode,
      error: outcome.error,
      durationMs: outcome.durationMs,
      at,
      status: next.status,
      nextAttemptAt: next.nextAttemptAt,
    });
    if (next.status === 'failed') {
      this.logger.warn(
        {
          deliveryId: delivery.id,
          webhookId: delivery.webhookId,
          statusCode: outcome.statusCode,
          error: outcome.error,
          attempts,
        },
        'webhooks: delivery failed',
      );
    }
    if (!recorded) this.logger.warn({ deliveryId: delivery.id }, 'webhooks: the claim ran out before the attempt was recorded');
  }

  private async pruneNowAndThen(): Promise<void> {
    const now = this.clock();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const removed = await this.store.prune(now - LOG_RETENTION_MS);
    if (removed > 0) this.logger.info({ removed }, 'webhooks: pruned the delivery log');
  }
}
