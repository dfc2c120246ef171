import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ServiceError } from '../domain/errors.js';
import type { LimiterFactory } from '../store/store.js';

const WINDOW_SECONDS = 60;

export const memoryLimiters: LimiterFactory = (points, duration, keyPrefix = 'workspace') =>
  new RateLimiterMemory({ points, duration, keyPrefix });

/** The per-workspace, per-minute budget of record writes made with API tokens. */
export class WriteBudget {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

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
      const retryAfter = Math.min(WINDOW_SECONDS, Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
      throw new ServiceError('RATE_LIMITED', 'Record write budget exceeded', { retryAfter });
    }
  }

  private limiterFor(budget: number): RateLimiterAbstract {
    let limiter = this.limiters.get(budget);
    if (!limiter) {
      limiter = this.makeLimiter(budget, WINDOW_SECONDS);
      this.limiters.set(budget, limiter);
    }
    return limiter;
  }
}
