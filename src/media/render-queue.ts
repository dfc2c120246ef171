// The renders of variants (docs/media.md, "Serving"): one render per variant however many requests wait for it, at
// most `concurrency` at once, at most `maxQueued` waiting; past that a request is refused at once (503 with
// Retry-After) instead of waiting, so that a flood of odd sizes cannot stall the service.

export interface RenderQueueOptions {
  /** Renders at once (`--transform-concurrency`, default the core count). */
  concurrency: number;
  /** Renders waiting for a place; one more is refused with RenderBusy. */
  maxQueued: number;
  /** Milliseconds, for the average render time behind RenderBusy's estimate (tests pass their own). */
  now?: () => number;
}

export interface RenderQueueFigures {
  running: number;
  queued: number;
  /** Works that finished, and that failed. */
  rendered: number;
  failed: number;
  /** Calls refused with RenderBusy. */
  refused: number;
}

/** The queue is full: the route answers 503 with `Retry-After: retryAfterSeconds`. */
export class RenderBusy extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many images are being rendered; retry in ${retryAfterSeconds} s`);
    this.name = 'RenderBusy';
  }
}

/** The render time assumed until one has been measured. */
const FIRST_ESTIMATE_MS = 500;
/** Weight of the last render in the moving average, so that the estimate follows a change of load. */
const SMOOTHING = 0.2;
const MIN_RETRY_AFTER_SECONDS = 1;
const MAX_RETRY_AFTER_SECONDS = 5;

export class RenderQueue {
  private readonly concurrency: number;
  private readonly maxQueued: number;
  private readonly now: () => number;
  /** The promise of each key running or waiting: a second call for it gets the same one. */
  private readonly pending = new Map<string, Promise<unknown>>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private rendered = 0;
  private failed = 0;
  private refused = 0;
  private averageMs = FIRST_ESTIMATE_MS;

  constructor({ concurrency, maxQueued, now = () => performance.now() }: RenderQueueOptions) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency: expected an integer ≥ 1');
    if (!Number.isInteger(maxQueued) || maxQueued < 0) throw new RangeError('maxQueued: expected an integer ≥ 0');
    this.concurrency = concurrency;
    this.maxQueued = maxQueued;
    this.now = now;
  }

  /**
   * Runs `work` when a place is free and answers its result; while the work of `key` is running or waiting, a call
   * for the same key answers the same promise (and its `work` is not called). Rejects with RenderBusy when the queue
   * is full.
   */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const pending = this.pending.get(key);
    if (pending) return pending as Promise<T>;
    const free = this.running < this.concurrency;
    if (!free && this.waiting.length >= this.maxQueued) {
      this.refused += 1;
      return Promise.reject(new RenderBusy(this.retryAfterSeconds()));
    }
    const promise = new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running += 1;
        void this.timed(work)
          .then(resolve, reject)
          .finally(() => this.finish(key));
      };
      if (free) start();
      else this.waiting.push(start);
    });
    this.pending.set(key, promise);
    return promise;
  }

  get figures(): RenderQueueFigures {
    return {
      running: this.running,
      queued: this.waiting.length,
      rendered: this.rendered,
      failed: this.failed,
      refused: this.refused,
    };
  }

  /** The time until a place is likely free: the renders ahead, shared by the places, at the average render time. */
  private retryAfterSeconds(): number {
    const seconds = Math.ceil((((this.running + this.waiting.length) / this.concurrency) * this.averageMs) / 1000);
    return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(MIN_RETRY_AFTER_SECONDS, seconds));
  }

  private async timed<T>(work: () => Promise<T>): Promise<T> {
    const started = this.now();
    try {
      const result = await work();
      this.rendered += 1;
      return result;
    } catch (error) {
      this.failed += 1;
      throw error;
    } finally {
      this.averageMs += SMOOTHING * (this.now() - started - this.averageMs);
    }
  }

  private finish(key: string): void {
    this.pending.delete(key);
    this.running -= 1;
    this.waiting.shift()?.();
  }
}
