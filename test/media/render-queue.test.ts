// The render queue (src/media/render-queue.ts): one work per key at a time however many ask, at most `concurrency`
// works at once, at most `maxQueued` waiting, and past that RenderBusy with a Retry-After estimate. Works are promises
// the tests resolve by hand: no sleeps, no timers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RenderBusy, RenderQueue } from '../../src/media/render-queue.js';

/** A promise and its resolve/reject, for a work that finishes when the test says so. */
function deferred<T = string>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** Lets the promise callbacks waiting to run (a finished work's, the next one's start) run. */
async function settle() {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** Works that count how many run at once, each finishing when the test resolves it. */
function meter() {
  const state = { running: 0, max: 0, started: [] as string[] };
  const gates = new Map<string, ReturnType<typeof deferred<string>>>();
  const work = (key: string) => async () => {
    state.running += 1;
    state.max = Math.max(state.max, state.running);
    state.started.push(key);
    const gate = deferred();
    gates.set(key, gate);
    try {
      return await gate.promise;
    } finally {
      state.running -= 1;
    }
  };
  const finish = (key: string, value = `done ${key}`) => {
    const gate = gates.get(key);
    assert.ok(gate, `${key} has started`);
    gate.resolve(value);
  };
  return { state, work, finish, gates };
}

describe('RenderQueue', () => {
  test('single flight: ten calls for one key run the work once and share its result', async () => {
    const queue = new RenderQueue({ concurrency: 2, maxQueued: 0 });
    let calls = 0;
    const gate = deferred();
    const work = () => {
      calls += 1;
      return gate.promise;
    };
    const promises = Array.from({ length: 10 }, () => queue.run('w800.webp', work));
    assert.equal(new Set(promises).size, 1, 'the same promise');
    assert.equal(calls, 1);
    assert.deepEqual(queue.figures, { running: 1, queued: 0, rendered: 0, failed: 0, refused: 0 });
    gate.resolve('bytes');
    assert.deepEqual(await Promise.all(promises), Array(10).fill('bytes'));
    assert.equal(calls, 1);
    await settle();
    assert.deepEqual(queue.figures, { running: 0, queued: 0, rendered: 1, failed: 0, refused: 0 });
  });

  test('a key that is waiting for a place is shared too; a key that finished runs again', async () => {
    const queue = new RenderQueue({ concurrency: 1, maxQueued: 1 });
    const { state, work, finish } = meter();
    const first = queue.run('a', work('a'));
    const waiting = queue.run('b', work('b'));
    assert.equal(queue.run('b', work('b again')), waiting, 'the queued key: the same promise');
    assert.deepEqual([queue.figures.running, queue.figures.queued], [1, 1]);
    finish('a');
    assert.equal(await first, 'done a');
    await settle();
    finish('b');
    assert.equal(await waiting, 'done b');
    assert.deepEqual(state.started, ['a', 'b']);

    await settle();
    const again = queue.run('a', work('a'));
    await settle();
    finish('a', 'second');
    assert.equal(await again, 'second');
    assert.deepEqual(state.started, ['a', 'b', 'a']);
  });

  test('at most `concurrency` works at once; the others wait their turn, first come first served', async () => {
    const queue = new RenderQueue({ concurrency: 3, maxQueued: 20 });
    const { state, work, finish } = meter();
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    const results = keys.map((key) => queue.run(key, work(key)));
    await settle();
    assert.deepEqual(state.started, ['k0', 'k1', 'k2']);
    assert.deepEqual([queue.figures.running, queue.figures.queued], [3, 9]);
    // Finish them in an odd order (newest, oldest, …), one at a time: a freed place lets exactly one more start.
    const finished = new Set<string>();
    for (let done = 0; done < keys.length; done++) {
      const unfinished = state.started.filter((key) => !finished.has(key));
      assert.equal(unfinished.length, Math.min(3, keys.length - done));
      const key = done % 2 === 0 ? unfinished[unfinished.length - 1]! : unfinished[0]!;
      finish(key);
      finished.add(key);
      await settle();
      assert.ok(state.running <= 3, `${state.running} at once`);
    }
    assert.equal(state.max, 3);
    assert.deepEqual(state.started, keys, 'started first come, first served');
    assert.deepEqual(
      await Promise.all(results),
      keys.map((key) => `done ${key}`),
    );
    assert.deepEqual(queue.figures, { running: 0, queued: 0, rendered: 12, failed: 0, refused: 0 });
  });

  test('past maxQueued, RenderBusy with retryAfterSeconds of at least 1; a refused key is not remembered', async () => {
    const queue = new RenderQueue({ concurrency: 2, maxQueued: 3 });
    const { work, finish } = meter();
    const accepted = ['a', 'b', 'c', 'd', 'e'].map((key) => queue.run(key, work(key)));
    await assert.rejects(queue.run('f', work('f')), (error: unknown) => {
      assert.ok(error instanceof RenderBusy);
      assert.ok(Number.isInteger(error.retryAfterSeconds) && error.retryAfterSeconds >= 1, String(error.retryAfterSeconds));
      assert.ok(error.retryAfterSeconds <= 5);
      return true;
    });
    await assert.rejects(queue.run('g', work('g')), RenderBusy);
    assert.equal(queue.run('e', work('e')), accepted[4], 'a key already queued is still shared when the queue is full');
    assert.deepEqual(queue.figures, { running: 2, queued: 3, rendered: 0, failed: 0, refused: 2 });

    await settle();
    finish('a');
    await settle();
    const retried = queue.run('f', work('f'));
    assert.deepEqual([queue.figures.running, queue.figures.queued], [2, 3], 'f took the free place in the queue');
    for (const key of ['b', 'c', 'd', 'e', 'f']) {
      await settle();
      finish(key);
    }
    await Promise.all([...accepted, retried]);
  });

  test('maxQueued 0: only free places; Retry-After follows the measured render time, within 1 to 5 s', async () => {
    let now = 0;
    const queue = new RenderQueue({ concurrency: 1, maxQueued: 0, now: () => now });
    const slow = deferred();
    const running = queue.run('slow', () => slow.promise);
    now = 40_000;
    slow.resolve('done');
    await running;
    await settle();
    const busy = deferred();
    const next = queue.run('next', () => busy.promise);
    await assert.rejects(
      queue.run('other', () => Promise.resolve('x')),
      (error: unknown) => {
        assert.ok(error instanceof RenderBusy);
        assert.equal(error.retryAfterSeconds, 5, 'long renders: capped at 5 s');
        return true;
      },
    );
    busy.resolve('done');
    await next;

    const fast = new RenderQueue({ concurrency: 1, maxQueued: 0, now: () => 0 });
    const gate = deferred();
    const held = fast.run('held', () => gate.promise);
    await assert.rejects(
      fast.run('other', () => Promise.resolve('x')),
      (error: unknown) => {
        assert.ok(error instanceof RenderBusy);
        assert.equal(error.retryAfterSeconds, 1, 'at least 1 s');
        return true;
      },
    );
    gate.resolve('done');
    await held;
  });

  test('a failing work rejects every caller, frees its place and is counted; the key can run again', async () => {
    const queue = new RenderQueue({ concurrency: 1, maxQueued: 1 });
    const gate = deferred();
    const callers = [queue.run('bad', () => gate.promise), queue.run('bad', () => gate.promise)];
    const after = queue.run('next', () => Promise.resolve('next ran'));
    gate.reject(new Error('cannot decode'));
    for (const caller of callers) await assert.rejects(caller, /cannot decode/);
    assert.equal(await after, 'next ran');
    await settle();
    assert.deepEqual(queue.figures, { running: 0, queued: 0, rendered: 1, failed: 1, refused: 0 });
    const thrown = queue.run('sync', () => {
      throw new Error('thrown at once');
    });
    await assert.rejects(thrown, /thrown at once/);
    assert.equal(await queue.run('bad', () => Promise.resolve('fine now')), 'fine now');
  });

  test('options are checked', () => {
    assert.throws(() => new RenderQueue({ concurrency: 0, maxQueued: 1 }), /concurrency/);
    assert.throws(() => new RenderQueue({ concurrency: 1.5, maxQueued: 1 }), /concurrency/);
    assert.throws(() => new RenderQueue({ concurrency: 1, maxQueued: -1 }), /maxQueued/);
  });
});
