import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ServiceError } from '../domain/errors.js';
import type { Limiter, LimiterFactory } from '../store/store.js';

const WINDOW_SECONDS = 60;

export const memoryLimiters: LimiterFactory = (points, duration, keyPrefix = 'workspace') =>
  new RateLimiterMemory({ points, duration, keyPrefix });

/**
 * The Retry-After of a refusal, in whole seconds: the limiter's time until its window ends, rounded up, at least 1
 * (also when the limiter reports no time left, 0, or none, -1) and at most the 60-second window.
 */
export function retryAfterSeconds(msBeforeNext: number): number {
  return Math.min(WINDOW_SECONDS, Math.max(1, Math.ceil(msBeforeNext / 1000)));
}

/** The per-workspace, per-minute budget of record writes made with API tokens. */
export class WriteBudget {
  private readonly limiters = new Map<number, Limiter>();

  constructor(
    readonly defaultBudget: number,
    private readonly makeLimiter: LimiterFactory = memoryLimiters,
  ) {}

  /** Charges `cost` to the workspace, or throws COST_EXCEEDS_BUDGET / RATE_LIMITED without charging. */
  async charge(workspaceId: string, cost: number, workspaceBudget: number | null): Promise<void> {
    const budget = workspaceBudget ?? this.defaultBudget;
    if (cost > budget) {
      throw new ServiceError(
        'COST_EXCEEDS_BUDGET',
        `Record write cost ${cost} exceeds the write budget of ${budget} per minute; split the call`,
        { cost, budget },
      );
    }
    const limiter = this.limiterFor(budget);
    try {
      await limiter.consume(workspaceId, cost);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      await limiter.reward(workspaceId, cost);
      throw new ServiceError('RATE_LIMITED', 'Record write budget exceeded', {
        retryAfter: retryAfterSeconds(error.msBeforeNext),
      });
    }
  }

  private limiterFor(budget: number): Limiter {
    let limiter = this.limiters.get(budget);
    if (!limiter) {
      limiter = this.makeLimiter(budget, WINDOW_SECONDS);
      this.limiters.set(budget, limiter);
    }
    return limiter;
  }
}
