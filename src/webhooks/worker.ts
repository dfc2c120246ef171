// The delivery worker (spec/webhooks.md), started by `serve`: takes the due deliveries from the outbox, signs and
// sends them, and records each attempt. Writes never wait for it: they only add rows to the outbox.
//
// Its parts: the options it is started with (worker-options.ts), the pauses of a webhook that keeps failing
// (pauses.ts), the deliveries in hand and their order per webhook (in-hand.ts), the batched records of attempts
// (attempt-recorder.ts) and the delivery log's pruning (log-pruner.ts); this file orchestrates them.
import { systemClock, type Clock } from '../clock.js';
import { renderEventBody } from '../domain/webhook-events.js';
import { newId } from '../ids.js';
import type { ClaimedDelivery, WebhookStore } from '../store/store.js';
import { AttemptRecorder } from './attempt-recorder.js';
import { DeliveriesInHand } from './in-hand.js';
import { LogPruner } from './log-pruner.js';
import { OneShotTimer } from './one-shot-timer.js';
import { longestPause, Pauses } from './pauses.js';
import { isRetryable, nextStep } from './retry.js';
import { signAndSend, type SendOutcome, type UnsignedSendRequest } from './send.js';
import type { WorkerLogger, WorkerOptions } from './worker-options.js';

export { DEFAULT_TIMEOUT_MS, type WorkerLogger, type WorkerOptions } from './worker-options.js';
export { longestPause, pauseLength } from './pauses.js';
export { LOG_RETENTION_MS } from './log-pruner.js';

const DEFAULT_MAX_IN_FLIGHT = 32;
const DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK = 16;
const DEFAULT_POLL_INTERVAL_MS = 500;
const SINGLE_PROCESS_POLL_INTERVAL_MS = 1_000;
const SHARED_STORE_GATHER_MS = 50;
/** SQLite: see WorkerOptions.gatherMs. */
const SINGLE_PROCESS_GATHER_MS = 5;
const QUIET_AFTER_DEFERRING_MS = 250;

/**
 * Claims due deliveries in event order (each claim leased, so that no other process sends them meanwhile), starts
 * them in that order, at most `maxInFlightPerWebhook` per webhook (the rest wait here, in order, at most
 * `maxInFlight` in hand in all), and records each attempt with what comes next (nextStep). A webhook that keeps
 * failing is paused (its new attempts wait); its first success makes its waiting retries due at once. Wakes when this process commits events, when an attempt ends, when the
 * next retry is due, and at least every `pollIntervalMs`.
 */
export class DeliveryWorker {
  private readonly store: WebhookStore;
  private readonly logger: WorkerLogger;
  private readonly clock: Clock;
  private readonly send: (request: UnsignedSendRequest) => Promise<SendOutcome>;
  private readonly maxInFlight: number;
  private readonly maxPerWebhook: number;
  private readonly pollIntervalMs: number;
  private readonly gatherMs: number;
  /** How long a claim holds: enough for every attempt this worker may hold to wait its turn and time out. */
  readonly leaseMs: number;
  /** Names this worker to the store: where processes share it, the webhooks it sends to are held in this name. */
  private readonly holder = newId();
  private running = false;
  private looping = false;
  private wakeAgain = false;
  /** The next poll. */
  private readonly pollTimer = new OneShotTimer();
  /** A wake put off while new events are quiet (onEventsWritten). */
  private readonly quietTimer = new OneShotTimer();
  /** A wake put off for gatherMs. */
  private readonly gatherTimer = new OneShotTimer();
  /** The last claim took as many as it asked for: more are due (a backlog), and no wake waits for gatherMs. */
  private moreDue = false;
  /** Until then, new events do not wake the worker at once (its last claim went back whole). */
  private quietUntil = 0;
  /** Deliveries claimed and not yet recorded: in flight, waiting for their turn, or being recorded. */
  private readonly inHand: DeliveriesInHand;
  /** Webhooks whose attempts failed (retryably) in a row, and their pauses. */
  private readonly pauses: Pauses;
  private readonly recorder: AttemptRecorder;
  private readonly pruner: LogPruner;
  /** Claims are made for at least this many deliveries (unless none is in hand), so that a drain claims in batches. */
  private readonly minimumClaim: number;

  constructor(private readonly options: WorkerOptions) {
    this.store = options.store;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.send = options.send ?? signAndSend;
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.maxPerWebhook = Math.min(options.maxInFlightPerWebhook ?? DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK, this.maxInFlight);
    this.pollIntervalMs =
      options.pollIntervalMs ?? (this.store.sharedByProcesses ? DEFAULT_POLL_INTERVAL_MS : SINGLE_PROCESS_POLL_INTERVAL_MS);
    this.gatherMs = options.gatherMs ?? (this.store.sharedByProcesses ? SHARED_STORE_GATHER_MS : SINGLE_PROCESS_GATHER_MS);
    this.minimumClaim = Math.max(1, Math.floor(this.maxInFlight / 4));
    this.pauses = new Pauses(longestPause(options.retryDelaysSeconds));
    this.leaseMs = (Math.ceil(this.maxInFlight / this.maxPerWebhook) + 2) * options.timeoutMs;
    this.inHand = new DeliveriesInHand(
      this.maxPerWebhook,
      (delivery, onAnswer) => this.attempt(delivery, onAnswer),
      () => this.wake(),
      this.logger,
    );
    this.recorder = new AttemptRecorder(this.store, this.gatherMs, () => this.gathering);
    this.pruner = new LogPruner(this.store, this.clock, this.logger);
  }

  async start(): Promise<void> {
    if (this.running) return;
    await this.store.releaseClaims();
    this.running = true;
    this.store.onEventsWritten(this.onEventsWritten);
    this.wakeNow();
  }

  /**
   * Takes no more deliveries and waits for the attempts in flight; gives back the deliveries still waiting their turn
   * and the webhooks it holds, so that another process takes them over at once, in order.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.pollTimer.cancel();
    this.quietTimer.cancel();
    this.gatherTimer.cancel();
    // A claim in progress ends first: what it took is in hand then.
    while (this.looping) await new Promise((resolve) => setTimeout(resolve, 5));
    const unattempted = this.inHand.giveBackWaiting();
    await this.inHand.settled();
    try {
      await this.store.releaseHold(this.holder, unattempted);
    } catch (error) {
      // Their leases run out instead.
      this.logger.warn({ err: error }, 'webhooks: letting go of the held deliveries failed');
    }
  }

  /**
   * New events wake the worker, except shortly after a claim whose deliveries all went back (their webhooks are
   * paused): then once per QUIET_AFTER_DEFERRING_MS, so that a receiver that is down does not cost a claim and a
   * write-back per write.
   */
  private readonly onEventsWritten = (): void => {
    const wait = this.quietUntil - this.clock();
    if (wait <= 0) {
      this.wake();
      return;
    }
    this.quietTimer.startUnlessPending(wait, this.wake);
  };

  /** Whether work waits gatherMs before a pass and a record: not with a backlog to drain. */
  private get gathering(): boolean {
    return this.gatherMs > 0 && !this.moreDue;
  }

  /** New events, an attempt's end: a pass after gatherMs, unless gathering is off. */
  private readonly wake = (): void => {
    if (!this.running) return;
    if (!this.gathering) {
      this.wakeNow();
      return;
    }
    this.gatherTimer.startUnlessPending(this.gatherMs, this.wakeNow);
  };

  private readonly wakeNow = (): void => {
    if (!this.running) return;
    if (this.looping) {
      this.wakeAgain = true;
      return;
    }
    void this.loop();
  };

  private async loop(): Promise<void> {
    this.looping = true;
    this.pollTimer.cancel();
    let delay = this.pollIntervalMs;
    /** The time of this wake's last claim: what came due after it was not claimed. */
    let claimedAt: number | null = null;
    try {
      do {
        this.wakeAgain = false;
        // Room for more: a delivery answered makes room while its attempt is being recorded (its claim still holds
        // it), so that claims and records overlap in a drain; at most maxInFlight records wait, or claims stop.
        const { held, recording } = this.inHand;
        const free = Math.min(this.maxInFlight - held, 2 * this.maxInFlight - held - recording);
        if (free <= 0 || (free < this.minimumClaim && held + recording > 0)) break;
        const now = this.clock();
        claimedAt = now;
        const token = newId();
        const claimed = await this.store.claimDue({
          token,
          holder: this.holder,
          inHand: this.inHand.webhookIds(),
          now,
          leaseUntil: now + this.leaseMs,
          limit: free,
        });
        await this.deferPaused(claimed, token, now);
        this.moreDue = claimed.length === free;
        if (this.moreDue) this.wakeAgain = true;
      } while (this.running && this.wakeAgain);
      // With deliveries in hand, the end of each attempt wakes the worker: retries that come due meanwhile are claimed then.
      if (this.running && this.inHand.held + this.inHand.recording === 0) {
        // Due after the last claim's time, not after now: a pause that ended, or a delivery that came due, while that
        // claim ran (a timer fires up to a few ms early, counted from the event loop's cached time) is waited for
        // then, not until the next poll.
        const due = await this.store.nextDueAfter(claimedAt ?? this.clock());
        if (due !== null) delay = Math.min(delay, Math.max(due - this.clock(), 5));
        await this.pruner.pruneNowAndThen();
      }
    } catch (error) {
      this.logger.error({ err: error }, 'webhooks: reading the outbox failed; trying again');
    } finally {
      this.looping = false;
    }
    if (!this.running) return;
    if (this.wakeAgain) {
      this.wakeNow();
      return;
    }
    this.pollTimer.startUnlessPending(delay, this.wakeNow);
  }

  /**
   * Takes the claimed deliveries in hand, except those of a webhook that failed again and again: while it is paused
   * they go back, and with them the webhook's whole backlog, put off to the pause's end in one statement (putOff;
   * the deliveries this process writes for it meanwhile are stored due then, so they cost no claim). When the pause is
   * over, the oldest delivery claimed tries the receiver alone (the probe) and the backlog is put off until the next
   * pause would end, counted from the probe's start: its success makes the backlog due at once (expedite), its failure
   * starts that pause. A receiver that is down costs one attempt and one statement per pause, not a claim and a
   * write-back per event. The deliveries that go back are written back before any attempt starts, so that an
   * attempt's success cannot make them due before they are put off.
   */
  private async deferPaused(claimed: ClaimedDelivery[], token: string, now: number): Promise<void> {
    const { taken, goingBack } = this.pauses.sort(claimed, now, (webhookId) => this.inHand.has(webhookId));
    if (taken.length === 0 && goingBack.size > 0) this.quietUntil = now + QUIET_AFTER_DEFERRING_MS;
    try {
      for (const [webhookId, { until, ids }] of goingBack) await this.store.putOff(webhookId, until, ids, token, now);
    } finally {
      for (const delivery of taken) this.inHand.take(delivery);
    }
  }

  /**
   * After an attempt: counts the webhook's failures in a row (Pauses.noteOutcome). A success ends them; when they had
   * paused the webhook (the endpoint was down), it also makes the webhook's waiting retries due at once. Only then: a
   * receiver that refuses one event while accepting others would otherwise bring that event's retries forward at each
   * success, and spend its whole schedule in seconds.
   */
  private async noteOutcome(webhookId: string, succeeded: boolean, retryable: boolean, now: number): Promise<void> {
    if (this.pauses.noteOutcome(webhookId, succeeded, retryable, now)) await this.store.expedite(webhookId, now);
  }

  private async attempt(delivery: ClaimedDelivery, onAnswer: () => void): Promise<void> {
    const started = this.clock();
    const body = renderEventBody(delivery.event);
    const secrets = [delivery.secret];
    if (delivery.previousSecret !== null && (delivery.previousSecretUntil ?? 0) > started) secrets.push(delivery.previousSecret);
    const outcome = await this.send({
      url: delivery.url,
      body,
      signature: { id: delivery.event.id, timestampSeconds: Math.floor(started / 1000), secrets },
      timeoutMs: this.options.timeoutMs,
      allowPrivate: this.options.allowPrivate,
    });
    const at = this.clock();
    const attempts = delivery.attempts + 1;
    const next = nextStep(attempts, outcome, this.options.retryDelaysSeconds, at);
    // A 429 is a receiver that answers and asks for time: it neither pauses the webhook nor cuts its Retry-After short.
    if (outcome.statusCode !== 429) {
      await this.noteOutcome(delivery.webhookId, next.status === 'succeeded', isRetryable(outcome), at);
    }
    onAnswer();
    const recorded = await this.recorder.record({
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
}
