// Waiting in tests with a deadline: a condition that never comes true fails the test with a message saying
// what was awaited, instead of hanging until the runner's own timeout (or forever).
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  timeoutMs: number;
  /** What was awaited; the error says it (a function: computed at the deadline, e.g. with counts so far). */
  message: string | (() => string);
  intervalMs?: number;
}

/** Polls `condition` until it returns true; throws `message` when `timeoutMs` has passed first. */
export async function waitFor(condition: () => boolean | Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() >= deadline) throw new Error(`${messageOf(options)} (not within ${options.timeoutMs} ms)`);
    await sleep(options.intervalMs ?? 20);
  }
}

/** `promise`, or an error with `message` when it has not settled within `timeoutMs`. */
export async function withDeadline<T>(promise: Promise<T>, options: Omit<WaitOptions, 'intervalMs'>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${messageOf(options)} (not within ${options.timeoutMs} ms)`)), options.timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function messageOf(options: Pick<WaitOptions, 'message'>): string {
  return typeof options.message === 'function' ? options.message() : options.message;
}
