// The write budget's own arithmetic, on a clock the test moves: what is admitted, the Retry-After of a refusal
// (rounded up, 1 to 60), the refill when the minute is over, and a cost over the whole budget refused before any
// charge. The memory limiter of rate-limiter-flexible reads Date.now itself, so the clock-driven tests use
// limiters that answer as it does (test/support/manual-clock.ts); the last tests check that they agree with it.
// test/http/write-budget.test.ts and test/client/budget.test.ts check the same rules over HTTP, in real time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memoryLimiters, retryAfterSeconds, WriteBudget } from '../../src/budget/write-budget.js';
import type { LimiterFactory } from '../../src/store/store.js';
import { ServiceError } from '../../src/domain/errors.js';
import { clockedLimiters, ManualClock } from '../support/manual-clock.js';

const BUDGET = 10;
const MINUTE = 60_000;

function budgetOn(clock: ManualClock, defaultBudget = BUDGET): WriteBudget {
  return new WriteBudget(defaultBudget, clockedLimiters(clock.now));
}

/** The ServiceError `charge` throws, or undefined when it admits the cost. */
async function refusal(budget: WriteBudget, cost: number, workspaceBudget: number | null = null, workspace = 'w1') {
  try {
    await budget.charge(workspace, cost, workspaceBudget);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ServiceError, String(error));
    return { code: error.code, message: error.message, extensions: error.extensions };
  }
}

function rateLimited(retryAfter: number) {
  return { code: 'RATE_LIMITED', message: 'Record write budget exceeded', extensions: { retryAfter } };
}

async function chargeOnes(budget: WriteBudget, times: number, workspace = 'w1'): Promise<void> {
  for (let i = 0; i < times; i++)
    assert.equal(await refusal(budget, 1, null, workspace), undefined, `write ${i + 1} of ${times}`);
}

describe('write budget (clock-driven)', () => {
  test('retryAfterSeconds: whole seconds rounded up, at least 1, at most 60', () => {
    const cases: [number, number][] = [
      [-1, 1], // no expiry reported
      [0, 1],
      [1, 1],
      [999, 1],
      [1000, 1],
      [1001, 2],
      [59_000, 59],
      [59_001, 60],
      [60_000, 60],
      [60_001, 60], // a shared store's clock ahead of ours: never more than the window
      [3_600_000, 60],
    ];
    for (const [ms, seconds] of cases) assert.equal(retryAfterSeconds(ms), seconds, `${ms} ms`);
  });

  test('the budget is admitted exactly; the next write is refused with Retry-After 60 at the start of the minute', async () => {
    const clock = new ManualClock();
    const budget = budgetOn(clock);
    await chargeOnes(budget, BUDGET);
    assert.deepEqual(await refusal(budget, 1), rateLimited(60));
  });

  test('Retry-After counts down with the clock, rounded up to whole seconds', async () => {
    const clock = new ManualClock();
    const budget = budgetOn(clock);
    await chargeOnes(budget, BUDGET);
    const expected: [number, number][] = [
      [1, 60], // 59.999 s left
      [999, 59], // 59.000 s left
      [1, 59], // 58.999 s left
      [57_998, 2], // 1.001 s left
      [1, 1], // 1.000 s left
      [999, 1], // 0.001 s left
    ];
    for (const [step, retryAfter] of expected) {
      clock.advance(step);
      assert.deepEqual(await refusal(budget, 1), rateLimited(retryAfter), `after ${step} ms more`);
    }
  });

  test('the whole budget is back exactly when the minute since the first write is over', async () => {
    const clock = new ManualClock();
    const budget = budgetOn(clock);
    await chargeOnes(budget, 1);
    clock.advance(30_000);
    await chargeOnes(budget, BUDGET - 1);
    clock.advance(MINUTE - 30_000 - 1);
    assert.deepEqual(await refusal(budget, 1), rateLimited(1), 'one millisecond before the minute is over');
    clock.advance(1);
    await chargeOnes(budget, BUDGET);
    assert.deepEqual(await refusal(budget, 1), rateLimited(60), 'a new minute began with the first write after the old one');
  });

  test('a refused charge costs nothing: what was left can still be used, and refusals do not push the window', async () => {
    const clock = new ManualClock();
    const budget = budgetOn(clock);
    await chargeOnes(budget, BUDGET - 1);
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      assert.deepEqual(await refusal(budget, 2), rateLimited(60 - (i + 1)), 'two writes with one unit left');
    }
    assert.equal(await refusal(budget, 1), undefined, 'the one unit left');
    assert.deepEqual(await refusal(budget, 1), rateLimited(55));
  });

  test('a cost of exactly the budget is admitted; one more is COST_EXCEEDS_BUDGET with cost and budget, and charges nothing', async () => {
    const clock = new ManualClock();
    const budget = budgetOn(clock);
    assert.deepEqual(await refusal(budget, BUDGET + 1, null, 'w2'), {
      code: 'COST_EXCEEDS_BUDGET',
      message: `Record write cost ${BUDGET + 1} exceeds the write budget of ${BUDGET} per minute; split the call`,
      extensions: { cost: BUDGET + 1, budget: BUDGET },
    });
    // Refused also when the budget is used up: the answer is to split, not to wait.
    await chargeOnes(budget, BUDGET, 'w1');
    assert.equal((await refusal(budget, BUDGET + 1, null, 'w1'))?.code, 'COST_EXCEEDS_BUDGET');
    // Nothing was charged to w2: the whole budget in one call.
    assert.equal(await refusal(budget, BUDGET, null, 'w2'), undefined);
    assert.deepEqual(await refusal(budget, 1, null, 'w2'), rateLimited(60));
  });

  test("a workspace's own budget replaces the default, for admission and for COST_EXCEEDS_BUDGET", async () => {
    const clock = new ManualClock();
    const budget = budgetOn(clock);
    assert.deepEqual((await refusal(budget, 4, 3))?.extensions, { cost: 4, budget: 3 });
    for (let i = 0; i < 3; i++) assert.equal(await refusal(budget, 1, 3), undefined);
    assert.deepEqual(await refusal(budget, 1, 3), rateLimited(60));
    assert.equal(await refusal(budget, BUDGET + 5, 50, 'big'), undefined, 'a budget larger than the default');
  });

  test('workspaces have budgets of their own', async () => {
    const clock = new ManualClock();
    const budget = budgetOn(clock);
    await chargeOnes(budget, BUDGET, 'a');
    clock.advance(20_000);
    await chargeOnes(budget, BUDGET, 'b');
    assert.deepEqual(await refusal(budget, 1, null, 'a'), rateLimited(40));
    assert.deepEqual(await refusal(budget, 1, null, 'b'), rateLimited(60));
  });
});

describe('write budget with a shorter window (--write-budget-window)', () => {
  const WINDOW = 5;

  test('the budget is counted per window: Retry-After at most the window, the whole budget back when it is over', async () => {
    const clock = new ManualClock();
    const budget = new WriteBudget(BUDGET, clockedLimiters(clock.now), WINDOW);
    await chargeOnes(budget, BUDGET);
    assert.deepEqual(await refusal(budget, 1), rateLimited(WINDOW));
    clock.advance(WINDOW * 1000 - 1001);
    assert.deepEqual(await refusal(budget, 1), rateLimited(2), '1.001 s left');
    clock.advance(1001);
    await chargeOnes(budget, BUDGET);
    assert.deepEqual(await refusal(budget, 1), rateLimited(WINDOW));
  });

  test("the 413 names the window; the default window is the spec's minute", async () => {
    const clock = new ManualClock();
    const message = async (window?: number) =>
      (await refusal(new WriteBudget(BUDGET, clockedLimiters(clock.now), window), BUDGET + 1))?.message;
    assert.equal(
      await message(),
      `Record write cost ${BUDGET + 1} exceeds the write budget of ${BUDGET} per minute; split the call`,
    );
    assert.equal(
      await message(60),
      `Record write cost ${BUDGET + 1} exceeds the write budget of ${BUDGET} per minute; split the call`,
    );
    assert.equal(
      await message(WINDOW),
      `Record write cost ${BUDGET + 1} exceeds the write budget of ${BUDGET} per 5 seconds; split the call`,
    );
    assert.equal(
      await message(1),
      `Record write cost ${BUDGET + 1} exceeds the write budget of ${BUDGET} per second; split the call`,
    );
  });

  test('a window outside 1 to 60 whole seconds is refused', () => {
    for (const window of [0, -1, 1.5, 61, Number.NaN]) {
      assert.throws(() => new WriteBudget(BUDGET, memoryLimiters, window), RangeError, String(window));
    }
  });

  test('retryAfterSeconds: at most the window', () => {
    assert.equal(retryAfterSeconds(60_000, WINDOW), WINDOW);
    assert.equal(retryAfterSeconds(4_001, WINDOW), WINDOW);
    assert.equal(retryAfterSeconds(4_000, WINDOW), 4);
    assert.equal(retryAfterSeconds(0, WINDOW), 1);
  });
});

describe('the clock-driven limiters answer as the memory limiter does', () => {
  /** The same calls at one instant, on both; only msBeforeNext depends on the time, so it is compared apart. */
  async function script(limiters: LimiterFactory) {
    const limiter = limiters(3, 60);
    const outcomes: unknown[] = [];
    const record = async (call: () => Promise<{ remainingPoints: number; consumedPoints: number; msBeforeNext: number }>) => {
      try {
        const res = await call();
        outcomes.push({
          ok: res.remainingPoints,
          consumed: res.consumedPoints,
          inWindow: res.msBeforeNext > 0 && res.msBeforeNext <= 60_000,
        });
      } catch (res: any) {
        outcomes.push({
          refused: res.remainingPoints,
          consumed: res.consumedPoints,
          inWindow: res.msBeforeNext > 0 && res.msBeforeNext <= 60_000,
        });
      }
    };
    await record(() => limiter.consume('k', 1));
    await record(() => limiter.consume('k', 2));
    await record(() => limiter.consume('k', 1));
    await record(() => limiter.reward('k', 1));
    await record(() => limiter.consume('other', 3));
    await record(() => limiter.consume('other', 4));
    return outcomes;
  }

  test('the same sequence of charges, refusals and rewards gives the same answers', async () => {
    const memory = await script(memoryLimiters);
    assert.deepEqual(await script(clockedLimiters(new ManualClock().now)), memory);
    assert.deepEqual(memory, [
      { ok: 2, consumed: 1, inWindow: true },
      { ok: 0, consumed: 3, inWindow: true },
      { refused: 0, consumed: 4, inWindow: true },
      { ok: 0, consumed: 3, inWindow: true },
      { ok: 0, consumed: 3, inWindow: true },
      { refused: 0, consumed: 7, inWindow: true },
    ]);
  });

  test('a cost that cannot fit is refused before it is counted: writes that fit, sent meanwhile, are all admitted', async () => {
    // A shared limiter (PostgreSQL, Redis) gives a refused charge back a round trip after counting it.
    const slowToGiveBack: LimiterFactory = (points, duration, keyPrefix) => {
      const limiter = memoryLimiters(points, duration, keyPrefix);
      return {
        consume: (key, charged, options) => limiter.consume(key, charged, options),
        get: (key, options) => limiter.get(key, options),
        reward: async (key, points, options) => {
          await new Promise((resolve) => setTimeout(resolve, 30));
          return limiter.reward(key, points, options);
        },
      };
    };
    const budget = new WriteBudget(30, slowToGiveBack);
    await chargeOnes(budget, 25);
    const [importCall, ...creates] = await Promise.all([
      refusal(budget, 10),
      ...Array.from({ length: 5 }, () => refusal(budget, 1)),
    ]);
    assert.equal(importCall?.code, 'RATE_LIMITED');
    assert.deepEqual(creates, [undefined, undefined, undefined, undefined, undefined]);
    assert.equal((await refusal(budget, 1))?.code, 'RATE_LIMITED', 'the budget is used up exactly');
  });

  test('the write budget on the memory limiter: the budget admitted, then RATE_LIMITED, a refusal charging nothing', async () => {
    const budget = new WriteBudget(BUDGET, memoryLimiters);
    await chargeOnes(budget, BUDGET - 1);
    const refused = await refusal(budget, 2);
    assert.equal(refused?.code, 'RATE_LIMITED');
    const retryAfter = refused?.extensions.retryAfter as number;
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    assert.equal(await refusal(budget, 1), undefined, 'the one unit left');
    assert.equal((await refusal(budget, 1))?.code, 'RATE_LIMITED');
  });
});
