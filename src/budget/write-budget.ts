import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ServiceError } from '../domain/errors.js';
import type { Limiter, LimiterFactory } from '../store/store.js';

/** The window the write budget is counted over unless the server is told otherwise: the spec's minute. */
export const DEFAULT_WINDOW_SECONDS = 60;
/** The longest window: Retry-After is never more than 60 seconds. */
export const MAX_WINDOW_SECONDS = 60;

export const memoryLimiters: LimiterFactory = (points, duration, keyPrefix = 'workspace') =>
  new RateLimiterMemory({ points, duration, keyPrefix });

/**
 * The Retry-After of a refusal, in whole seconds: the limiter's time until its window ends, rounded up, at least 1
 * (also when the limiter reports no time left, 0, or none, -1) and at most the window (60 seconds by default).
 */
export function retryAfterSeconds(msBeforeNext: number, windowSeconds = DEFAULT_WINDOW_SECONDS): number {
  return Math.min(windowSeconds, Math.max(1, Math.ceil(msBeforeNext / 1000)));
}

/** "minute" for the default window, else "5 seconds" (the 413's message names the window). */
function windowName(seconds: number): string {
  if (seconds === 60) return 'minute';
  return seconds === 1 ? 'second' : `${seconds} seconds`;
}

/**
 * The per-workspace budget of record writes made with API tokens, per minute (or per the window the server was
 * given, `--write-budget-window`: 1 to 60 seconds).
 */
export class WriteBudget {
  private readonly limiters = new Map<number, Limiter>();

  constructor(
    readonly defaultBudget: number,
    private readonly makeLimiter: LimiterFactory = memoryLimiters,
    readonly windowSeconds = DEFAULT_WINDOW_SECONDS,
  ) {
    if (!Number.isInteger(windowSeconds) || windowSeconds < 1 || windowSeconds > MAX_WINDOW_SECONDS) {
      throw new RangeError(`The write budget window must be 1 to ${MAX_WINDOW_SECONDS} whole seconds, got ${windowSeconds}`);
    }
  }

  /** Charges `cost` to the workspace, or throws COST_EXCEEDS_BUDGET / RATE_LIMITED without charging. */
  async charge(workspaceId: string, cost: number, workspaceBudget: number | null): Promise<void> {
    const budget = workspaceBudget ?? this.defaultBudget;
    if (cost > budget) {
      throw new ServiceError(
        'COST_EXCEEDS_BUDGET',
        `Record write cost ${cost} exceeds the write budget of ${budget} per ${windowName(this.windowSeconds)}; split the call`,
        { cost, budget },
      );
    }
    const limiter = this.limiterFor(budget);
    // A charge over what is left is counted, refused and given back: until it is given back (a round trip on a
    // shared limiter) other writes see the budget fuller than it is. A cost of 1 is refused only when the budget is
    // already used up, and then so would they be; a larger cost that cannot fit is refused before it is counted.
    if (cost > 1) {
      const used = await limiter.get(workspaceId);
      if (used !== null && used.msBeforeNext > 0 && used.consumedPoints + cost > budget) throw this.rateLimited(used);
    }
    try {
      await limiter.consume(workspaceId, cost);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      await limiter.reward(workspaceId, cost);
      throw this.rateLimited(error);
    }
  }

  private rateLimited({ msBeforeNext }: RateLimiterRes): ServiceError {
    return new ServiceError('RATE_LIMITED', 'Record write budget exceeded', {
      retryAfter: retryAfterSeconds(msBeforeNext, this.windowSeconds),
    });
  }

  private limiterFor(budget: number): Limiter {
    let limiter = this.limiters.get(budget);
    if (!limiter) {
      limiter = this.makeLimiter(budget, this.windowSeconds);
      this.limiters.set(budget, limiter);
    }
    return limiter;
  }
}
