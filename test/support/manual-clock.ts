// Time a test sets: a Clock (src/clock.ts) that stands still until the test moves it.
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Limiter, LimiterFactory } from '../../src/store/store.js';
import type { Clock } from '../../src/clock.js';

export class ManualClock {
  constructor(private time = Date.UTC(2030, 0, 1)) {}

  /** The Clock to pass to the code under test. */
  readonly now: Clock = () => this.time;

  advance(ms: number): void {
    this.time += ms;
  }

  set(time: number): void {
    this.time = time;
  }
}

/**
 * Fixed-window limiters that read `clock`, answering as rate-limiter-flexible's memory limiter does (which reads
 * Date.now itself and so cannot be given a clock): a key's window starts at its first charge and lasts
 * `durationSeconds`; a charge over the points is counted and rejected with a RateLimiterRes giving the time
 * left in the window; reward takes points back. test/budget/write-budget.test.ts checks the two agree.
 */
export function clockedLimiters(clock: Clock): LimiterFactory {
  return (points, durationSeconds) => new ClockedWindowLimiter(clock, points, durationSeconds * 1000);
}

class ClockedWindowLimiter implements Limiter {
  private readonly windows = new Map<string, { consumed: number; endsAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly points: number,
    private readonly durationMs: number,
  ) {}

  async consume(key: string | number, points = 1): Promise<RateLimiterRes> {
    const window = this.add(String(key), points);
    const res = new RateLimiterRes(Math.max(this.points - window.consumed, 0), window.endsAt - this.clock(), window.consumed);
    if (window.consumed > this.points) throw res;
    return res;
  }

  async get(key: string | number): Promise<RateLimiterRes | null> {
    const window = this.windows.get(String(key));
    if (!window || window.endsAt <= this.clock()) return null;
    return new RateLimiterRes(Math.max(this.points - window.consumed, 0), window.endsAt - this.clock(), window.consumed);
  }

  async reward(key: string | number, points = 1): Promise<RateLimiterRes> {
    const window = this.add(String(key), -points);
    return new RateLimiterRes(Math.max(this.points - window.consumed, 0), window.endsAt - this.clock(), window.consumed);
  }

  private add(key: string, points: number): { consumed: number; endsAt: number } {
    const now = this.clock();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { consumed: 0, endsAt: now + this.durationMs };
      this.windows.set(key, window);
    }
    window.consumed += points;
    return window;
  }
}
