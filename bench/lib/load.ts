import { performance } from 'node:perf_hooks';
import { latencySummary, type LatencySummary } from './stats.js';

export interface LoadResult extends LatencySummary {
  requestsPerSecond: number;
  seconds: number;
}

/**
 * A closed-loop load: `concurrency` workers, each sending its next request as soon as the previous answered,
 * for `warmupMs` (not counted) then `durationMs`. `send(worker, n)` makes one request and resolves with its
 * latency in ms.
 */
export async function closedLoop(
  concurrency: number,
  warmupMs: number,
  durationMs: number,
  send: (worker: number, n: number) => Promise<number>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let counting = false;
  let stopping = false;
  let countStarted = 0;
  let countEnded = 0;
  const workers = Array.from({ length: concurrency }, async (_, worker) => {
    for (let n = 0; !stopping; n++) {
      const ms = await send(worker, n);
      if (counting) latencies.push(ms);
    }
  });
  await new Promise((resolve) => setTimeout(resolve, warmupMs));
  counting = true;
  countStarted = performance.now();
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  counting = false;
  countEnded = performance.now();
  stopping = true;
  await Promise.all(workers);
  const seconds = (countEnded - countStarted) / 1000;
  return { ...latencySummary(latencies), requestsPerSecond: latencies.length / seconds, seconds };
}
