// The delivery worker (spec/webhooks.md), started by `serve`: takes the due deliveries from the outbox, signs and
// sends them, and records each attempt. Writes never wait for it: they only add rows to the outbox.
import { systemClock, type Clock } from '../clock.js';
import { renderEventBody } from '../domain/webhook-events.js';
import { newId } from '../ids.js';
import type { AttemptRecord, ClaimedDelivery, WebhookStore } from '../store/store.js';
import { isRetryable, nextStep } from './retry.js';
import { signAndSend, type SendOutcome, type UnsignedSendRequest } from './send.js';

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
  /**
   * How often the outbox is read when nothing wakes the worker: other processes' events on PostgreSQL (500 ms by
   * default); on SQLite, which one process serves, every event wakes the worker and this is a safety net (1 s).
   */
  pollIntervalMs?: number;
  /**
   * How long work gathers before the worker turns to the store: a wake waits this long, and the attempts that end
   * meanwhile are recorded together. On PostgreSQL each claim and record is a round trip and a statement planned
   * and run, which cost this process and the database much more than the rows in them, so one pass for many events
   * is worth a short wait (50 ms by default); SQLite's statements are calls in this process: at once (0).
   */
  gatherMs?: number;
  clock?: Clock;
  /** Sends one attempt (tests of the worker's rules could pass another; serve uses the real one). */
  send?: (request: UnsignedSendRequest) => Promise<SendOutcome>;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_IN_FLIGHT = 32;
const DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK = 16;
const DEFAULT_POLL_INTERVAL_MS = 500;
const SINGLE_PROCESS_POLL_INTERVAL_MS = 1_000;
const SHARED_STORE_GATHER_MS = 50;
const QUIET_AFTER_DEFERRING_MS = 250;
/** Attempts recorded in one transaction at most (those that end in the same turn of the event loop go together). */
const MAX_RECORD_BATCH = 64;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** Retryable failures in a row after which a webhook's new attempts wait (a pause). */
const PAUSE_AFTER_FAILURES = 5;
const FIRST_PAUSE_MS = 1000;
const MAX_PAUSE_MS = 30_000;
const MIN_PAUSE_MS = 100;
/**
 * The longest pause: the schedule's first retry delay (5 s by default), at most 30 s. A receiver that comes back is
 * then tried no later than a retry of a delivery attempted when it was down would be, and an event written meanwhile
 * is not held back longer than that by the deliveries that failed before it.
 */
export function longestPause(retryDelaysSeconds: readonly number[]): number {
  return Math.max(MIN_PAUSE_MS, Math.min((retryDelaysSeconds[0] ?? 0) * 1000, MAX_PAUSE_MS));
}
/** The `count`th pause of a failing webhook: 1 s, then twice as long each time, at most `longest`. */
export function pauseLength(count: number, longest: number): number {
  return Math.min(FIRST_PAUSE_MS * 2 ** (count - 1), longest);
}
/** A webhook whose attempts failed (retryably) in a row. */
interface FailingWebhook {
  failures: number;
  /** Pauses so far: the next one lasts pauseLength(pauses + 1). */
  pauses: number;
  /** Until then its deliveries wait (epoch milliseconds). */
  pausedUntil: number;
  /** When the attempt that tries the receiver after a pause started; null when none is out. */
  probeStartedAt: number | null;
}

/** The delivery log keeps settled deliveries and their attempts this long. */
export const LOG_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

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
  private readonly longestPauseMs: number;
  /** How long a claim holds: enough for every attempt this worker may hold to wait its turn and time out. */
  readonly leaseMs: number;
  /** Names this worker to the store: where processes share it, the webhooks it sends to are held in this name. */
  private readonly holder = newId();
  private running = false;
  private looping = false;
  private wakeAgain = false;
  private timer: NodeJS.Timeout | null = null;
  private quietTimer: NodeJS.Timeout | null = null;
  private gatherTimer: NodeJS.Timeout | null = null;
  /** The last claim took as many as it asked for: more are due (a backlog), and no wake waits for gatherMs. */
  private moreDue = false;
  /** Until then, new events do not wake the worker at once (its last claim went back whole). */
  private quietUntil = 0;
  private lastPrune = 0;
  /** Deliveries in hand per webhook: those in flight, those waiting for their turn, and those being recorded. */
  private readonly perWebhook = new Map<string, { sending: number; waiting: ClaimedDelivery[]; inHand: number }>();
  /** Deliveries claimed and not yet answered (in flight or waiting for their turn). */
  private held = 0;
  /** Attempts answered whose record is not written yet (their claims still hold them, so no claim takes them again). */
  private recording = 0;
  /** Webhooks whose attempts failed (retryably) in a row. */
  private readonly failing = new Map<string, FailingWebhook>();
  private readonly attempts = new Set<Promise<void>>();
  /** Claims are made for at least this many deliveries (unless none is in hand), so that a drain claims in batches. */
  private readonly minimumClaim: number;
  /** Attempts made and waiting to be recorded, with what their recording settles; written once per turn. */
  private toRecord: { attempt: AttemptRecord; settle: (recorded: boolean) => void; fail: (error: unknown) => void }[] = [];
  private recordScheduled = false;

  constructor(private readonly options: WorkerOptions) {
    this.store = options.store;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.send = options.send ?? signAndSend;
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.maxPerWebhook = Math.min(options.maxInFlightPerWebhook ?? DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK, this.maxInFlight);
    this.pollIntervalMs =
      options.pollIntervalMs ?? (this.store.sharedByProcesses ? DEFAULT_POLL_INTERVAL_MS : SINGLE_PROCESS_POLL_INTERVAL_MS);
    this.gatherMs = options.gatherMs ?? (this.store.sharedByProcesses ? SHARED_STORE_GATHER_MS : 0);
    this.minimumClaim = Math.max(1, Math.floor(this.maxInFlight / 4));
    this.longestPauseMs = longestPause(options.retryDelaysSeconds);
    this.leaseMs = (Math.ceil(this.maxInFlight / this.maxPerWebhook) + 2) * options.timeoutMs;
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = null;
    if (this.gatherTimer) clearTimeout(this.gatherTimer);
    this.gatherTimer = null;
    // A claim in progress ends first: what it took is in hand then.
    while (this.looping) await new Promise((resolve) => setTimeout(resolve, 5));
    const unattempted: ClaimedDelivery[] = [];
    for (const state of this.perWebhook.values()) {
      this.held -= state.waiting.length;
      state.inHand -= state.waiting.length;
      unattempted.push(...state.waiting);
      state.waiting = [];
    }
    while (this.attempts.size > 0) await Promise.allSettled([...this.attempts]);
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
    if (this.quietTimer) return;
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      this.wake();
    }, wait);
    this.quietTimer.unref();
  };

  /** Whether work waits gatherMs before a pass and a record: not on SQLite (0), nor with a backlog to drain. */
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
    if (this.gatherTimer) return;
    this.gatherTimer = setTimeout(() => {
      this.gatherTimer = null;
      this.wakeNow();
    }, this.gatherMs);
    this.gatherTimer.unref();
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let delay = this.pollIntervalMs;
    /** The time of this wake's last claim: what came due after it was not claimed. */
    let claimedAt: number | null = null;
    try {
      do {
        this.wakeAgain = false;
        // Room for more: a delivery answered makes room while its attempt is being recorded (its claim still holds
        // it), so that claims and records overlap in a drain; at most maxInFlight records wait, or claims stop.
        const free = Math.min(this.maxInFlight - this.held, 2 * this.maxInFlight - this.held - this.recording);
        if (free <= 0 || (free < this.minimumClaim && this.held + this.recording > 0)) break;
        const now = this.clock();
        claimedAt = now;
        const token = newId();
        const claimed = await this.store.claimDue({
          token,
          holder: this.holder,
          inHand: [...this.perWebhook.keys()],
          now,
          leaseUntil: now + this.leaseMs,
          limit: free,
        });
        await this.deferPaused(claimed, token, now);
        this.moreDue = claimed.length === free;
        if (this.moreDue) this.wakeAgain = true;
      } while (this.running && this.wakeAgain);
      // With deliveries in hand, the end of each attempt wakes the worker: retries that come due meanwhile are claimed then.
      if (this.running && this.held + this.recording === 0) {
        // Due after the last claim's time, not after now: a pause that ended, or a delivery that came due, while that
        // claim ran (a timer fires up to a few ms early, counted from the event loop's cached time) is waited for
        // then, not until the next poll.
        const due = await this.store.nextDueAfter(claimedAt ?? this.clock());
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
      this.wakeNow();
      return;
    }
    this.timer = setTimeout(this.wakeNow, delay);
    this.timer.unref();
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
    const taken: ClaimedDelivery[] = [];
    const goingBack = new Map<string, { until: number; ids: string[] }>();
    for (const delivery of claimed) {
      const { webhookId } = delivery;
      const state = this.failing.get(webhookId);
      if (!state || state.failures < PAUSE_AFTER_FAILURES) {
        taken.push(delivery);
        continue;
      }
      let back = goingBack.get(webhookId);
      if (!back) {
        if (state.pausedUntil <= now && !this.perWebhook.has(webhookId)) {
          // The pause is over and nothing of the webhook is in hand: this one, the oldest claimed, is the probe.
          state.probeStartedAt = now;
          taken.push(delivery);
          goingBack.set(webhookId, { until: now + this.pauseLength(state.pauses + 1), ids: [] });
          continue;
        }
        // Paused, or a probe (or an attempt of before the pause) is out: until its pause would end.
        const until = state.pausedUntil > now ? state.pausedUntil : now + this.pauseLength(state.pauses + 1);
        back = { until, ids: [] };
        goingBack.set(webhookId, back);
      }
      back.ids.push(delivery.id);
    }
    if (taken.length === 0 && goingBack.size > 0) this.quietUntil = now + QUIET_AFTER_DEFERRING_MS;
    try {
      for (const [webhookId, { until, ids }] of goingBack) await this.store.putOff(webhookId, until, ids, token, now);
    } finally {
      for (const delivery of taken) this.take(delivery);
    }
  }

  /**
   * After an attempt: counts the webhook's failures in a row. A success ends them; when they had paused the webhook
   * (the endpoint was down), it also makes the webhook's waiting retries due at once. Only then: a receiver that
   * refuses one event while accepting others would otherwise bring that event's retries forward at each success,
   * and spend its whole schedule in seconds.
   */
  private async noteOutcome(webhookId: string, succeeded: boolean, retryable: boolean, now: number): Promise<void> {
    const failing = this.failing.get(webhookId);
    if (succeeded) {
      if (failing) {
        this.failing.delete(webhookId);
        if (failing.pauses > 0) await this.store.expedite(webhookId, now);
      }
      return;
    }
    if (!retryable) return;
    const state = failing ?? { failures: 0, pauses: 0, pausedUntil: 0, probeStartedAt: null };
    state.failures++;
    // Attempts already in flight when a pause began do not lengthen it.
    if (state.failures >= PAUSE_AFTER_FAILURES && now >= state.pausedUntil) {
      state.pauses++;
      // After a probe, the pause counts from its start: the backlog was put off until then (deferPaused). A probe
      // slower than that still leaves a short pause, so that a receiver that hangs does not get one probe after another.
      state.pausedUntil = Math.max(
        (state.probeStartedAt ?? now) + this.pauseLength(state.pauses),
        now + Math.min(FIRST_PAUSE_MS, this.longestPauseMs),
      );
      state.probeStartedAt = null;
    }
    this.failing.set(webhookId, state);
  }

  /** The `count`th pause of a failing webhook, with this worker's longest pause. */
  private pauseLength(count: number): number {
    return pauseLength(count, this.longestPauseMs);
  }

  private take(delivery: ClaimedDelivery): void {
    let state = this.perWebhook.get(delivery.webhookId);
    if (!state) {
      state = { sending: 0, waiting: [], inHand: 0 };
      this.perWebhook.set(delivery.webhookId, state);
    }
    this.held++;
    state.inHand++;
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
      // The next one starts when the answer is in; the claim still holds the delivery until its attempt is recorded.
      let answered = false;
      const onAnswer = () => {
        if (answered) return;
        answered = true;
        state.sending--;
        this.held--;
        this.recording++;
        this.startWaiting(webhookId);
        this.wake();
      };
      const attempt = this.attempt(delivery, onAnswer)
        .catch((error: unknown) =>
          this.logger.error({ err: error, deliveryId: delivery.id }, 'webhooks: recording an attempt failed'),
        )
        .finally(() => {
          onAnswer();
          this.attempts.delete(attempt);
          this.recording--;
          state.inHand--;
          if (state.inHand === 0 && this.perWebhook.get(webhookId) === state) this.perWebhook.delete(webhookId);
          this.wake();
        });
      this.attempts.add(attempt);
    }
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
    const recorded = await this.record({
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

  /** Records the attempt with the others that end in this turn (within gatherMs): one statement for them all. */
  private record(attempt: AttemptRecord): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.toRecord.push({ attempt, settle, fail });
      if (this.recordScheduled) return;
      this.recordScheduled = true;
      if (!this.gathering) setImmediate(() => void this.recordBatches());
      else setTimeout(() => void this.recordBatches(), this.gatherMs);
    });
  }

  private async recordBatches(): Promise<void> {
    this.recordScheduled = false;
    const waiting = this.toRecord;
    this.toRecord = [];
    await Promise.all(
      Array.from({ length: Math.ceil(waiting.length / MAX_RECORD_BATCH) }, async (_, index) => {
        const batch = waiting.slice(index * MAX_RECORD_BATCH, (index + 1) * MAX_RECORD_BATCH);
        try {
          const recorded = await this.store.recordAttempts(batch.map((entry) => entry.attempt));
          batch.forEach((entry, position) => entry.settle(recorded[position]!));
        } catch (error) {
          for (const entry of batch) entry.fail(error);
        }
      }),
    );
  }

  private async pruneNowAndThen(): Promise<void> {
    const now = this.clock();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const removed = await this.store.prune(now - LOG_RETENTION_MS);
    if (removed > 0) this.logger.info({ removed }, 'webhooks: pruned the delivery log');
  }
}
